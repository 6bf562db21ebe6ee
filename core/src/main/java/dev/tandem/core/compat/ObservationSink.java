package dev.tandem.core.compat;

import dev.tandem.core.model.WorkloadSignature;

/** Receives measured co-location speeds from the world (simulator ground truth or live measurement). */
public interface ObservationSink {
    /** Records that {@code a} ran at {@code speedA} of solo and {@code b} at {@code speedB} while sharing {@code gpus} GPUs. */
    void observe(WorkloadSignature a, WorkloadSignature b, int gpus, double speedA, double speedB);
}
