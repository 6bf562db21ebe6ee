package dev.tandem.sim.engine;

import java.util.List;

/**
 * What happened to one job in a run. Times in seconds of simulated time; {@code iterations} is the job's total
 * work and {@code iterationsDone} the useful iterations it completed (work repeated after crashes or resumes
 * not counted); {@code partners} are the jobs it shared a GPU with, in the order it met them. {@code fairSeconds} is
 * how long it would have taken on its own equal share of the cluster: its solo time, stretched when that share (the
 * GPUs over the average number of jobs submitted and unfinished while it was) is smaller than the GPUs it needs
 * (Themis' finish-time fairness, as Gavel also uses it).
 */
public record JobRecord(String id, String user, String workload, int gpus, double submit, double firstStart, double finish,
                        double queueSeconds, double soloSeconds, double sharedSeconds, int restarts, int ooms,
                        double iterations, double iterationsDone, List<String> partners, double fairSeconds) {
    public double jct() { return finish - submit; }

    /** Completion time over the time it needs alone on idle GPUs (1 = never waited nor slowed). */
    public double slowdown() { return jct() / soloSeconds; }

    /** JCT over the time on its equal share ({@code fairSeconds}): above 1, the job did worse than a static equal split. */
    public double finishTimeFairness() { return jct() / fairSeconds; }
}
