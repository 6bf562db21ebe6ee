package dev.tandem.data;

import dev.tandem.core.model.WorkloadSignature;

/**
 * One measured co-location from a data set: both jobs' speeds relative to solo, the gang size, and the pair's
 * measured device memory in MiB (NaN when the source does not give it). {@code infeasible} marks a pair the
 * source says cannot share (Gavel's [0, 0]: out of memory).
 */
public record MeasuredPair(WorkloadSignature a, WorkloadSignature b, int gpus, double speedA, double speedB,
                           double pairMemoryMiB, boolean infeasible) {}
