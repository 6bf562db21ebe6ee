package dev.tandem.core.compat;

import dev.tandem.core.model.JobProfile;

/**
 * A measured pairing: each job's speed relative to solo while the two shared GPUs. {@code gpus} is the gang
 * size of both jobs (a gang shares only with a gang of the same size on the same GPUs).
 */
public record PairObservation(JobProfile a, JobProfile b, int gpus, double speedA, double speedB) {
    public PairObservation {
        if (!(speedA >= 0) || !(speedB >= 0)) throw new IllegalArgumentException("observed speeds must be non-negative, got " + speedA + ", " + speedB);
        if (gpus < 1) throw new IllegalArgumentException("gpus must be at least 1");
    }

    public PairObservation(JobProfile a, JobProfile b, double speedA, double speedB) {
        this(a, b, 1, speedA, speedB);
    }

    public double combined() { return speedA + speedB; }

}
