package dev.tandem.server.exec;

/** The executor could not do what was asked (start a process, run an NVIDIA tool). */
public class ExecException extends RuntimeException {
    public ExecException(String message) {
        super(message);
    }

    public ExecException(String message, Throwable cause) {
        super(message, cause);
    }
}
