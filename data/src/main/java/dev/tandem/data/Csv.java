package dev.tandem.data;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Reads a headed CSV file (or a headerless delimited one with given column names) row by row with typed,
 * validated field access that reports file, line and field. Public so that the trace readers share it.
 */
public final class Csv {
    /**
     * One data row; {@link #line()} is its line in the file (the header, if any, is line 1), counting blank lines
     * (the line where the row ends, for a quoted field spanning lines).
     */
    public static final class Row {
        private final DataSource source;
        private final CSVRecord record;
        private final long line;
        /** The most fields a row may have (see {@link Csv#read(DataSource, CSVFormat, List, Consumer, boolean)}). */
        private final int maxFields;

        Row(DataSource source, CSVRecord record, long line, int maxFields) {
            this.source = source;
            this.record = record;
            this.line = line;
            this.maxFields = maxFields;
        }

        /**
         * Every field of a row wider than the header is refused, so that a reader that skips bad rows
         * ({@code --bad-rows skip}) skips it like any other.
         */
        private void checkWidth() {
            if (record.size() > maxFields) {
                throw error(null, "the row has " + record.size() + " fields where the header names " + maxFields
                        + " (a field that holds the separator needs quotes)");
            }
        }

        public long line() { return line; }

        /** Number of fields in this row. */
        public int size() { return record.size(); }

        public boolean has(String field) {
            checkWidth();
            return record.isMapped(field) && record.isSet(field) && !record.get(field).isBlank();
        }

        public String text(String field) {
            checkWidth();
            if (!record.isMapped(field)) throw error(field, "column missing from header");
            if (!record.isSet(field)) throw error(field, "row has too few fields");
            String v = record.get(field).trim();
            if (v.isEmpty()) throw error(field, "value is empty");
            return v;
        }

        public double number(String field) {
            String v = text(field);
            try {
                double d = Double.parseDouble(v);
                if (Double.isNaN(d) || Double.isInfinite(d)) throw error(field, "'" + v + "' is not a finite number");
                return d;
            } catch (NumberFormatException e) {
                throw error(field, "'" + v + "' is not a number");
            }
        }

        public double optionalNumber(String field) { return has(field) ? number(field) : Double.NaN; }

        /** A number that cannot be negative: a count, a size, a time or a duration. */
        public double nonNegativeNumber(String field) {
            double v = number(field);
            if (v < 0) throw error(field, "must not be negative, got " + v);
            return v;
        }

        /** As {@link #nonNegativeNumber}, for a whole number. */
        public int nonNegativeInteger(String field) {
            int v = integer(field);
            if (v < 0) throw error(field, "must not be negative, got " + v);
            return v;
        }

        public int integer(String field) {
            String v = text(field);
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                double d = number(field);
                if (d != Math.rint(d)) throw error(field, "'" + v + "' is not a whole number");
                return (int) d;
            }
        }

        public boolean flag(String field) {
            String v = text(field).toLowerCase(Locale.ROOT);
            return switch (v) {
                case "1", "true", "yes", "on" -> true;
                case "0", "false", "no", "off" -> false;
                default -> throw error(field, "'" + v + "' is not a flag (0/1, true/false)");
            };
        }

        public DataFormatException error(String field, String problem) {
            return new DataFormatException(source.name(), line(), field, problem);
        }
    }

    /** How tandem writes CSV: a header, quotes only where a field needs them, one {@code \n} per record. */
    public static final CSVFormat WRITE_FORMAT = CSVFormat.DEFAULT.builder().setRecordSeparator('\n').get();

    private Csv() {}

    /** Reads a CSV file whose first line names the columns; fails on the header if a required column is missing. */
    public static void read(DataSource source, List<String> requiredColumns, Consumer<Row> rowHandler) {
        CSVFormat fmt = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).setTrim(true)
                .setIgnoreEmptyLines(true).setAllowMissingColumnNames(true).get();
        read(source, fmt, requiredColumns, rowHandler, true);
    }

    /**
     * Reads a file whose first line names the columns and whose fields are separated by {@code delimiter} and never
     * quoted (e.g. {@code sacct --parsable2}, '|'); a trailing delimiter ({@code sacct --parsable}) adds an empty,
     * unnamed column that is ignored.
     */
    public static void readDelimited(DataSource source, char delimiter, List<String> requiredColumns, Consumer<Row> rowHandler) {
        CSVFormat fmt = CSVFormat.DEFAULT.builder().setDelimiter(delimiter).setQuote(null).setHeader().setSkipHeaderRecord(true).setTrim(true)
                .setIgnoreEmptyLines(true).setAllowMissingColumnNames(true).get();
        read(source, fmt, requiredColumns, rowHandler, true);
    }

    /**
     * Reads a file without header whose fields are separated by {@code delimiter} and never quoted (e.g. Gavel's
     * tab-separated traces, whose commands may hold any character); {@code columns} name the fields in order.
     */
    public static void readHeaderless(DataSource source, char delimiter, List<String> columns, Consumer<Row> rowHandler) {
        CSVFormat fmt = CSVFormat.DEFAULT.builder().setDelimiter(delimiter).setQuote(null).setHeader(columns.toArray(String[]::new))
                .setSkipHeaderRecord(false).setTrim(true).setIgnoreEmptyLines(true).get();
        read(source, fmt, columns, rowHandler, false);
    }

    /**
     * @param noWiderThanHeader a row with more fields than the header names is an error: a field that held the
     *                          separator unquoted (a name with a comma) shifts every later field one column on, and
     *                          read by name they would be taken for what they are not. Files without a header line
     *                          (Gavel's traces: a command may hold anything) keep what follows the named fields.
     */
    private static void read(DataSource source, CSVFormat fmt, List<String> requiredColumns, Consumer<Row> rowHandler, boolean noWiderThanHeader) {
        try (Reader r = source.open(); CSVParser p = CSVParser.parse(r, fmt)) {
            List<String> header = new ArrayList<>(p.getHeaderNames());
            for (String c : requiredColumns) {
                if (!header.contains(c)) throw new DataFormatException(source.name(), 1, c, "required column missing from header " + header);
            }
            for (CSVRecord rec : p) {
                // the lexer has just passed the row's end
                Row row = new Row(source, rec, p.getCurrentLineNumber(), noWiderThanHeader ? header.size() : Integer.MAX_VALUE);
                try {
                    rowHandler.accept(row);
                } catch (IllegalArgumentException e) {
                    throw new DataFormatException(source.name(), row.line(), null, e.getMessage());
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // commons-csv reports broken quoting as an I/O error naming the line
            throw new DataFormatException(source.name(), 0, null, "malformed CSV: " + e.getMessage());
        } catch (IllegalStateException e) {
            throw new DataFormatException(source.name(), 1, null, "malformed CSV header: " + e.getMessage());
        }
    }
}
