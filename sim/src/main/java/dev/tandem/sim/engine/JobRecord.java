package dev.tandem.sim.engine;

import java.util.List;

/**
 * What happened to one job in a run. Times in seconds of simulated time; {@code iterations} is the job's total
 * work and {@code iterationsDone} the useful iterations it completed (work repeated after crashes or resumes
 * not counted); {@code partners} are the jobs it shared a GPU with, in the order it met them.
 */
public record JobRecord(String id, String user, String workload, int gpus, double submit, double firstStart, double finish,
                        double queueSeconds, double soloSeconds, double sharedSeconds, int restarts, int ooms,
                        double iterations, double iterationsDone, List<String> partners) {
    public double jct() { return finish - submit; }

    /** Completion time over the time it needs alone on idle GPUs (1 = never waited nor slowed). */
    public double slowdown() { return jct() / soloSeconds; }
}
