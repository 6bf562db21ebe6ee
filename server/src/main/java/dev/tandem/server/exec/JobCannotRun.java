package dev.tandem.server.exec;

/**
 * The job as stored cannot run here, on this attempt or any other: its owner's Unix account is gone, it asks for
 * limits this machine cannot enforce, its environment sets something no run can take. The job fails at once, with
 * why, instead of using up its attempts on starts that fail the same way (a crash or a busy executor may pass; this
 * does not).
 */
public final class JobCannotRun extends ExecException {
    public JobCannotRun(String message) {
        super(message);
    }
}
