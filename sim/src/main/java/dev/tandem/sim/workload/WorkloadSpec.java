package dev.tandem.sim.workload;

/**
 * How to draw a synthetic workload: {@code jobs} jobs, their arrival pattern, gang sizes, and solo durations
 * drawn log-uniformly from [minDurationS, maxDurationS] (Gavel's generator draws durations as 10^x minutes with
 * x uniform, the same shape), from the profiles {@code mix} selects (trace jobs are assigned from them too).
 */
public record WorkloadSpec(int jobs, Arrival arrival, SizeMix sizes, double minDurationS, double maxDurationS, long seed, ProfileMix mix) {
    public WorkloadSpec {
        if (mix == null) throw new IllegalArgumentException("profile mix is missing");
        if (jobs < 1) throw new IllegalArgumentException("need at least one job, got " + jobs);
        if (!(minDurationS > 0) || !(maxDurationS >= minDurationS)) {
            throw new IllegalArgumentException("durations need 0 < min <= max, got " + minDurationS + ".." + maxDurationS);
        }
    }

    /** A workload drawn from the profiles with measured pairs ({@link ProfileMix#MEASURED}). */
    public static WorkloadSpec of(int jobs, String arrival, String sizes, double minS, double maxS, long seed) {
        return new WorkloadSpec(jobs, Arrival.parse(arrival), SizeMix.parse(sizes), minS, maxS, seed, ProfileMix.MEASURED);
    }

    public WorkloadSpec withMix(ProfileMix m) { return new WorkloadSpec(jobs, arrival, sizes, minDurationS, maxDurationS, seed, m); }
}
