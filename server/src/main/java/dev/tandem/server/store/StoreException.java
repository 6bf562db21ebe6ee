package dev.tandem.server.store;

/** A database error; the daemon cannot go on without its store, so this is unchecked. */
public final class StoreException extends RuntimeException {
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public StoreException(String message) {
        super(message);
    }
}
