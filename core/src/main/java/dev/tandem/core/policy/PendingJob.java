package dev.tandem.core.policy;

import dev.tandem.core.model.Job;

/**
 * A job waiting for GPUs.
 *
 * @param queuedSince        when it last entered the queue (submission, preemption or crash)
 * @param attainedGpuSeconds GPU-seconds of service received so far (Tiresias' 2D attained service)
 * @param remainingIterations iterations still to run, counting from its last checkpoint
 * @param restarts           how often it was preempted or crashed so far
 */
public record PendingJob(Job job, double queuedSince, double attainedGpuSeconds, double remainingIterations, int restarts) {
    public String id() { return job.id(); }
}
