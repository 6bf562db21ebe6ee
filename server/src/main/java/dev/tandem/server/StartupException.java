package dev.tandem.server;

/**
 * tandem serve cannot start, for a reason the operator can fix; the message says what happened and what to do,
 * in one line. Thrown before the daemon writes anything it would not write on a good start.
 */
public final class StartupException extends RuntimeException {
    public StartupException(String message) {
        super(message);
    }

    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
