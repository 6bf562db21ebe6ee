package dev.tandem.server.exec;

/**
 * The executor cannot be reached for now (Slurm: slurmctld is down or restarting), so nothing was done: a run that
 * was to start did not start and is no crash of the job; the scheduler waits until {@link Executor#ready()}.
 */
public final class ExecutorUnavailable extends ExecException {
    public ExecutorUnavailable(String message) {
        super(message);
    }
}
