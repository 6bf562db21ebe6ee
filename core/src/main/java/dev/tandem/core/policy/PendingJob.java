package dev.tandem.core.policy;

import dev.tandem.core.model.Job;

/**
 * A job waiting for GPUs.
 *
 * @param queuedSince        when it last entered the queue (submission, preemption or crash)
 * @param attainedGpuSeconds GPU-seconds of service received so far (Tiresias' 2D attained service)
 * @param remainingIterations iterations still to run, counting from its last checkpoint
 * @param restarts           how often it was preempted or crashed so far
 * @param lengthKnown        whether the world knows how long it runs; if not, {@code remainingIterations} is the world's
 *                           guess (see {@link SchedulerSnapshot#expectedSoloSeconds(PendingJob)} for a better one)
 */
public record PendingJob(Job job, double queuedSince, double attainedGpuSeconds, double remainingIterations, int restarts, boolean lengthKnown) {
    /** A job whose length is known. */
    public PendingJob(Job job, double queuedSince, double attainedGpuSeconds, double remainingIterations, int restarts) {
        this(job, queuedSince, attainedGpuSeconds, remainingIterations, restarts, true);
    }

    public String id() { return job.id(); }
}
