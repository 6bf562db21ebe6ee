package dev.tandem.sim.engine;

/**
 * What happened to one job in a run. Times in seconds of simulated time; {@code iterations} is the job's total
 * work and {@code iterationsDone} the useful iterations it completed (work repeated after crashes or resumes
 * not counted).
 */
public record JobRecord(String id, String workload, int gpus, double submit, double firstStart, double finish,
                        double queueSeconds, double soloSeconds, double sharedSeconds, int restarts, int ooms,
                        double iterations, double iterationsDone) {
    public double jct() { return finish - submit; }
}
