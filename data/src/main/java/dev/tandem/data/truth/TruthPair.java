package dev.tandem.data.truth;

/**
 * The simulator's ground truth for two jobs sharing GPUs: speeds relative to solo, whether they were measured
 * (or come from the fallback), the pair's measured memory (NaN if unknown: then the jobs' own memory is summed),
 * and whether the pair is known not to fit at all.
 */
public record TruthPair(double speedA, double speedB, boolean measured, double pairMemoryMiB, boolean infeasible) {
    /**
     * Whether the two jobs run out of memory together on a GPU of {@code capacityMiB}: the pair is known not to fit,
     * or its measured memory (else the sum of the jobs' own, {@code memoryA} and {@code memoryB}) is above the GPU's.
     * An unknown memory (NaN) fits.
     */
    public boolean overflows(long capacityMiB, double memoryA, double memoryB) {
        if (infeasible) return true;
        double mem = Double.isNaN(pairMemoryMiB) ? memoryA + memoryB : pairMemoryMiB;
        return mem > capacityMiB;
    }
}
