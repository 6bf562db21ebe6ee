package dev.tandem.sim.workload;

/**
 * How to draw a synthetic workload: {@code jobs} jobs, their arrival pattern, gang sizes, and solo durations
 * drawn log-uniformly from [minDurationS, maxDurationS] (Gavel's generator draws durations as 10^x minutes with
 * x uniform, the same shape).
 */
public record WorkloadSpec(int jobs, Arrival arrival, SizeMix sizes, double minDurationS, double maxDurationS, long seed) {
    public WorkloadSpec {
        if (jobs < 1) throw new IllegalArgumentException("need at least one job, got " + jobs);
        if (!(minDurationS > 0) || !(maxDurationS >= minDurationS)) {
            throw new IllegalArgumentException("durations need 0 < min <= max, got " + minDurationS + ".." + maxDurationS);
        }
    }

    public static WorkloadSpec of(int jobs, String arrival, String sizes, double minS, double maxS, long seed) {
        return new WorkloadSpec(jobs, Arrival.parse(arrival), SizeMix.parse(sizes), minS, maxS, seed);
    }
}
