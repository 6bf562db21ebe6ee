package dev.tandem.data.truth;

/**
 * The simulator's ground truth for two jobs sharing GPUs: speeds relative to solo, whether they were measured
 * (or come from the fallback), the pair's measured memory (NaN if unknown: then the jobs' own memory is summed),
 * and whether the pair is known not to fit at all.
 */
public record TruthPair(double speedA, double speedB, boolean measured, double pairMemoryMiB, boolean infeasible) {
}
