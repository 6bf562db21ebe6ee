package dev.tandem.core.policy;

import dev.tandem.core.model.Job;

import java.util.List;

/**
 * A job holding GPUs.
 *
 * @param gpus               cluster GPU ids it runs on
 * @param startedAt          start of its current run (since its last start or resume)
 * @param placedAt           when its current set of GPU neighbours formed
 * @param remainingIterations iterations still to run
 * @param observedSpeed      measured speed relative to solo under the current neighbours, NaN until measured
 * @param lengthKnown        whether the world knows how long it runs (see {@link PendingJob#lengthKnown()})
 */
public record RunningJob(Job job, List<Integer> gpus, double startedAt, double placedAt, double remainingIterations,
                         double attainedGpuSeconds, double observedSpeed, boolean lengthKnown) {
    public RunningJob {
        gpus = List.copyOf(gpus);
    }

    /** A job whose length is known. */
    public RunningJob(Job job, List<Integer> gpus, double startedAt, double placedAt, double remainingIterations, double attainedGpuSeconds,
                      double observedSpeed) {
        this(job, gpus, startedAt, placedAt, remainingIterations, attainedGpuSeconds, observedSpeed, true);
    }

    public String id() { return job.id(); }
}
