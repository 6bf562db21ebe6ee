package dev.tandem.server.exec;

/** What {@link Executor#poll()} reports. */
public sealed interface ExecEvent {
    long jobId();

    /** The job printed {@code tandem:progress iter=N}; {@code at} is when the daemon read it (epoch ms). */
    record Progress(long jobId, long iteration, long at) implements ExecEvent {}

    /**
     * The run has not started yet: the executor's cluster keeps it waiting ({@code why}: Slurm's PENDING and its reason).
     * Said once per run, when it has waited longer than a start normally takes; the job's history notes it, so that a
     * job counted as running but making no progress says why.
     */
    record Waiting(long jobId, String why) implements ExecEvent {}

    /**
     * The job's process ended. {@code exitCode} is null when it left no status: it ended while no daemon watched it,
     * or the executor lost it (a Slurm node failed); {@code lost} then says what happened where the executor knows.
     * {@code oomInLog} tells whether this run's output had a CUDA out-of-memory message; {@code leftovers}, when not
     * null, says which processes the run left behind and were stopped, and which of its limits the run hit;
     * {@code overMemoryLimit}: the kernel killed a process of the run for going over its host memory limit.
     */
    record Exited(long jobId, Integer exitCode, boolean oomInLog, String lost, String leftovers, boolean overMemoryLimit) implements ExecEvent {
        public Exited(long jobId, Integer exitCode, boolean oomInLog, String lost) {
            this(jobId, exitCode, oomInLog, lost, null, false);
        }
    }
}
