package dev.tandem.server.exec;

import dev.tandem.server.gpu.GpuReadings;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Runs jobs on this machine's GPUs. The scheduler loop is its only caller (one thread), so implementations
 * need not be thread-safe; the one exception is {@link Binding#call}, which runs elsewhere and touches no state.
 */
public interface Executor extends AutoCloseable {
    /** The daemon's secrets, which jobs must never inherit from its environment. */
    List<String> DAEMON_SECRETS = List.of("TANDEM_TOKEN", "TANDEM_STORE_PASSWORD");

    List<GpuDevice> discoverGpus();

    /** Starts a run; throws {@link ExecutorUnavailable} when nothing could be started for now, else {@link ExecException}. */
    Launched start(Launch launch);

    /**
     * Starts a run whose slow part may finish later, off the loop's thread ({@link Binding}); the quick checks and
     * preparations happen here and throw as {@link #start} does. By default the run starts here and now.
     */
    default Binding<?> bind(Launch launch) { return Binding.done(start(launch)); }

    /** Whether new runs can be started now; false while the executor is unreachable (Slurm: slurmctld down). */
    default boolean ready() { return true; }

    /**
     * Why a GPU ({@link GpuDevice#index()}) may take no new run now as the executor's cluster tells it (Slurm: its node
     * is down, drained or not responding, or has no CPU or memory free, or another Slurm job or tandem daemon holds the
     * GPU), or null where it may. Runs already on it
     * are the cluster's to end.
     */
    default String unavailable(int gpu) { return null; }

    /**
     * Asks the executor's cluster again, at most every so often ({@code nowMs} is the daemon's clock), what may change
     * while the daemon runs: which GPUs are {@link #unavailable} and what the cluster enforces ({@link #cannotEnforce}).
     * Returns whether {@link #unavailable} changed for any GPU. Called every tick by the scheduler loop.
     */
    default boolean refreshCluster(long nowMs) { return false; }

    /**
     * Solo seconds of work a stopped run repeats when it resumes (what resuming from its last checkpoint loses), as
     * far as this executor knows it: the simulated executor charges a fixed overhead, as the simulator does; real
     * runs report it only by their progress once resumed (0 here).
     */
    default double resumeOverheadSeconds() { return 0; }

    /**
     * Seconds of the cluster's time per second of the daemon's clock: 1 on real GPUs; N on a simulated cluster under
     * {@code --time-scale N}. The policy reasons in the cluster's seconds (see the scheduler's {@code PolicyTime}), so
     * its own durations mean what they mean in {@code tandem simulate}; so do this executor's
     * {@link #resumeOverheadSeconds()} and the speeds of its {@link #hardwareProfiles()}.
     */
    default double clusterSecondsPerSecond() { return 1; }

    /** Asks the job's processes to stop (SIGTERM, then SIGKILL after the grace period); its exit comes through poll. */
    void stop(long jobId);

    /** Whether a process started by an earlier daemon was taken over; false when it is gone without a trace. */
    boolean adopt(long jobId, int attempt, Long pid, Long pidStarted);

    /** Progress lines read and processes ended since the last call. */
    List<ExecEvent> poll();

    /**
     * The GPU readings a profiling run took of itself (Slurm: a sampler beside the job on its node), once its
     * profiling window is over or it ended ({@link GpuReadings#complete()} false until then); empty where the
     * daemon's own GPU monitor sees the GPUs. {@code gpus} are the run's GPUs as {@link GpuDevice#index()}.
     */
    default Optional<GpuReadings> jobReadings(long jobId, int attempt, List<Integer> gpus) { return Optional.empty(); }

    /**
     * Solo profiles this executor's GPUs are known to run at without measuring them, in iterations per cluster second
     * ({@link #clusterSecondsPerSecond()}): a simulated executor's ground truth. Real executors have none: the daemon
     * measures each workload alone here before it judges co-located speeds.
     */
    default List<dev.tandem.core.model.JobProfile> hardwareProfiles() { return List.of(); }

    /**
     * Whether a process on this machine belongs to one of this daemon's runs (or to what serves them, such as the MPS
     * server): a GPU with any other process on it is busy with someone else's work. Executors whose GPUs the daemon
     * does not watch say no.
     */
    default boolean owns(long pid) { return false; }

    /**
     * Copies a job's output so far to {@code target} with the rights of {@code owner} (null: the daemon's own account),
     * so that the owner has it as a file of its own; completes with why it could not, or empty. Executors whose output
     * the daemon does not hold say so.
     */
    default java.util.concurrent.CompletableFuture<Optional<String>> handOverOutput(long jobId, UnixAccount owner, java.nio.file.Path target) {
        return java.util.concurrent.CompletableFuture.completedFuture(Optional.of("the " + getClass().getSimpleName() + " hands no output over"));
    }

    /** Why this executor cannot enforce a job's run limits; empty where it can, or where none are asked for. */
    default Optional<String> cannotEnforce(dev.tandem.server.store.RunLimits limits) {
        return limits.any() ? Optional.of("the " + getClass().getSimpleName() + " sets no run limits") : Optional.empty();
    }

    /**
     * Why this executor can never run a job of this workload (the simulated one runs only workloads it has measured
     * speeds of), or empty: the API refuses such a job when it is submitted rather than letting it fail at each start.
     */
    default Optional<String> cannotRun(dev.tandem.core.model.WorkloadSignature workload) { return Optional.empty(); }

    /**
     * Why this executor cannot use a variable of a job's environment that it reads itself (the simulated one reads the
     * job's length from one), or empty: the API refuses such a job when it is submitted rather than letting it fail at
     * each start.
     */
    default Optional<String> cannotUse(String variable, String value) { return Optional.empty(); }

    /** How runs are kept apart from the daemon and from each other, for the start-up log. */
    String containment();

    /** Jobs whose processes are still alive (including ones asked to stop). */
    Set<Long> liveJobs();

    /** Stops every job and waits for them to end (shutdown with --stop-jobs-on-shutdown, and tests). */
    void stopAll();

    @Override void close();
}
