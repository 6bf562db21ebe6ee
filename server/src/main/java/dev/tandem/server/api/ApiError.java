package dev.tandem.server.api;

/** A request the API refuses: HTTP status, a message for people, and the offending field where there is one. */
public final class ApiError extends RuntimeException {
    private final int status;
    private final String field;

    public ApiError(int status, String field, String message) {
        super(message);
        this.status = status;
        this.field = field;
    }

    public static ApiError badField(String field, String message) { return new ApiError(400, field, field + ": " + message); }

    public static ApiError notFound(String what) { return new ApiError(404, null, what + " not found"); }

    public int status() { return status; }

    public String field() { return field; }
}
