package dev.tandem.core.policy;

import java.util.Comparator;
import java.util.Objects;

/**
 * The world's record of how its queue changed: every job that entered or left it, in order. A policy that keeps its
 * own index of the queue (tandem's shortest-first order, {@code QueueOrder}) follows these changes instead of
 * rescanning thousands of queued jobs every round; a world that hands no journal (at a round whose queue rules
 * reordered the queue: priorities, fair share between users) makes such policies rescan. Both worlds keep theirs in
 * {@code core.runtime.WaitingQueue}.
 *
 * <p>Jobs are told apart by identity: a world hands a new {@link PendingJob} each time a job (re-)enters the queue,
 * and that object stays in the queue until the job leaves it.
 */
public final class QueueJournal extends Journal<PendingJob> {
    private final Comparator<PendingJob> order;

    /**
     * @param order the queue's order, fixed for the life of the world (a reader finds a job's place by binary search)
     */
    public QueueJournal(Comparator<PendingJob> order, int capacity) {
        super(capacity);
        this.order = Objects.requireNonNull(order, "order");
    }

    public void entered(PendingJob job) { record(job, true); }

    public void left(PendingJob job) { record(job, false); }

    public Comparator<PendingJob> order() { return order; }
}
