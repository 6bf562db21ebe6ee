package dev.tandem.data.truth;

import dev.tandem.core.model.JobProfile;

/** Ground-truth co-location behaviour, kept apart from whatever a policy predicts. */
public interface InterferenceTruth {
    String name();

    TruthPair pair(JobProfile a, JobProfile b, int gpus);
}
