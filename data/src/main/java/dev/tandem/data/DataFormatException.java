package dev.tandem.data;

/** Bad input data: says which file, which line and which field, so the user can fix it. */
public final class DataFormatException extends RuntimeException {
    private final String source;
    private final long line;
    private final String field;

    public DataFormatException(String source, long line, String field, String problem) {
        super(format(source, line, field, problem));
        this.source = source;
        this.line = line;
        this.field = field;
    }

    private static String format(String source, long line, String field, String problem) {
        StringBuilder sb = new StringBuilder(source);
        if (line > 0) sb.append(':').append(line);
        sb.append(": ");
        if (field != null) sb.append("field '").append(field).append("': ");
        return sb.append(problem).toString();
    }

    public String source() { return source; }
    public long line() { return line; }
    public String field() { return field; }
}
