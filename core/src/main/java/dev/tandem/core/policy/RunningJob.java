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
 */
public record RunningJob(Job job, List<Integer> gpus, double startedAt, double placedAt, double remainingIterations,
                         double attainedGpuSeconds, double observedSpeed) {
    public RunningJob {
        gpus = List.copyOf(gpus);
    }

    public String id() { return job.id(); }
}
