package dev.tandem.core.compat;

import dev.tandem.core.model.JobProfile;

/** Predicts how two jobs slow each other down when they share GPUs, from their solo profiles. */
public interface CompatibilityModel {
    String name();

    /** Prediction for two single-GPU jobs sharing one GPU. */
    PairPrediction predict(JobProfile a, JobProfile b);

    /** Prediction for two gangs of {@code gpus} GPUs each sharing the same GPUs; by default as for one GPU. */
    default PairPrediction predict(JobProfile a, JobProfile b, int gpus) {
        return predict(a, b);
    }
}
