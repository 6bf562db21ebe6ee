package dev.tandem.server.exec;

/**
 * The executor cannot be reached for now (Slurm: slurmctld is down or restarting), or cannot start this run for now
 * (Slurm: its GPU was just taken by another tandem daemon's run), so nothing was done: a run that was to start did not
 * start and is no crash of the job; the scheduler waits until {@link Executor#ready()}, or places the job again.
 */
public final class ExecutorUnavailable extends ExecException {
    public ExecutorUnavailable(String message) {
        super(message);
    }
}
