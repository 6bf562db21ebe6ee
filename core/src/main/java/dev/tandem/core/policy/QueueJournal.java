package dev.tandem.core.policy;

import java.util.Comparator;
import java.util.Objects;

/**
 * The world's record of how its queue changed: every job that entered or left it, in order. A policy that keeps its
 * own index of the queue (tandem's shortest-first order, {@code QueueOrder}) follows these changes instead of
 * rescanning thousands of queued jobs every round; a world that keeps no journal (its queue order may change between
 * rounds, as the daemon's admission order does) makes such policies rescan.
 *
 * <p>The last {@code capacity} changes are kept; a reader that fell further behind is told so and rebuilds. Jobs are
 * told apart by identity: a world hands a new {@link PendingJob} each time a job (re-)enters the queue, and that
 * object stays in the queue until the job leaves it.
 */
public final class QueueJournal {
    /** What a reader does with each change. */
    public interface Reader {
        void changed(PendingJob job, boolean entered);
    }

    private final Comparator<PendingJob> order;
    private final PendingJob[] jobs;
    private final boolean[] entered;
    private long count;

    /**
     * @param order the queue's order, fixed for the life of the world (a reader finds a job's place by binary search)
     */
    public QueueJournal(Comparator<PendingJob> order, int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be at least 1");
        this.order = Objects.requireNonNull(order, "order");
        this.jobs = new PendingJob[capacity];
        this.entered = new boolean[capacity];
    }

    public void entered(PendingJob job) { record(job, true); }

    public void left(PendingJob job) { record(job, false); }

    private void record(PendingJob job, boolean in) {
        int at = (int) (count % jobs.length);
        jobs[at] = job;
        entered[at] = in;
        count++;
    }

    /** Changes recorded so far: a reader remembers this and later asks for what came after it. */
    public long count() { return count; }

    public Comparator<PendingJob> order() { return order; }

    /**
     * Hands the reader every change after the first {@code from}, oldest first; false (and nothing handed) if some
     * of them are no longer kept.
     */
    public boolean readSince(long from, Reader reader) {
        if (from < 0 || from > count || count - from > jobs.length) return false;
        for (long k = from; k < count; k++) {
            int at = (int) (k % jobs.length);
            reader.changed(jobs[at], entered[at]);
        }
        return true;
    }
}
