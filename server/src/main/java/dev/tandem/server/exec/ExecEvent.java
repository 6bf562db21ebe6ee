package dev.tandem.server.exec;

/** What {@link Executor#poll()} reports. */
public sealed interface ExecEvent {
    long jobId();

    /** The job printed {@code tandem:progress iter=N}; {@code at} is when the daemon read it (epoch ms). */
    record Progress(long jobId, long iteration, long at) implements ExecEvent {}

    /**
     * The job's process ended. {@code exitCode} is null when the process ended while no daemon watched it and left
     * no status; {@code oomInLog} tells whether this run's output had a CUDA out-of-memory message.
     */
    record Exited(long jobId, Integer exitCode, boolean oomInLog) implements ExecEvent {}
}
