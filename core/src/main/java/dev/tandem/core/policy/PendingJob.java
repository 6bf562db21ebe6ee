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
 * @param submitSeq          the job's place in the world's submission order (the store's job number live, the
 *                           workload's order in the simulator): the queue's order, also among jobs submitted at one
 *                           instant, as one number to compare (a queue keeps order with it thousands of times a round)
 */
public record PendingJob(Job job, double queuedSince, double attainedGpuSeconds, double remainingIterations, int restarts, boolean lengthKnown,
                         long submitSeq) {
    /** A job whose length is known, first in submission order among jobs submitted with it (tests, benchmarks). */
    public PendingJob(Job job, double queuedSince, double attainedGpuSeconds, double remainingIterations, int restarts) {
        this(job, queuedSince, attainedGpuSeconds, remainingIterations, restarts, true, 0);
    }

    /** The world's queue order: submission order. */
    public static int bySubmission(PendingJob a, PendingJob b) {
        return Long.compare(a.submitSeq, b.submitSeq);
    }

    public String id() { return job.id(); }
}
