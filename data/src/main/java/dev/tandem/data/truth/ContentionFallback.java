package dev.tandem.data.truth;

import dev.tandem.core.model.JobProfile;

/**
 * Ground truth for pairs nobody measured: a processor-sharing contention model. Each job asks for its solo
 * GPU utilisation u; while the sum fits (u_a + u_b <= 100 %) both keep their speed, beyond that the GPU is
 * shared in proportion, so each runs at {@code 100 / (u_a + u_b)} of solo. Every co-located job also pays a
 * fixed {@code overhead} (context switching, cache and memory-bandwidth interference; 5 % by default). Without
 * utilisation in either profile the jobs are assumed to take turns: 0.5 each, minus the overhead.
 *
 * <p>It is deliberately simple and independent of any policy's model, and it is optimistic for pairs of
 * memory-bound jobs; runs report how many pair-seconds came from it.
 */
public final class ContentionFallback {
    private final double overhead;

    public ContentionFallback(double overhead) {
        if (overhead < 0 || overhead >= 1) throw new IllegalArgumentException("overhead must be within [0, 1)");
        this.overhead = overhead;
    }

    public static ContentionFallback standard() { return new ContentionFallback(0.05); }

    public TruthPair pair(JobProfile a, JobProfile b) {
        double share;
        if (Double.isNaN(a.gpuUtil()) || Double.isNaN(b.gpuUtil())) {
            share = 0.5;
        } else {
            double sum = a.gpuUtil() + b.gpuUtil();
            share = sum <= 100 ? 1.0 : 100.0 / sum;
        }
        double s = share * (1 - overhead);
        return new TruthPair(s, s, false, Double.NaN, false);
    }
}
