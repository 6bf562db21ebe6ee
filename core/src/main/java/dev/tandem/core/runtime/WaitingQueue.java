package dev.tandem.core.runtime;

import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.QueueJournal;

import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The waiting jobs in the world's queue order, kept across decisions, with the journal of how they changed
 * ({@link QueueJournal}) that lets a policy follow the queue instead of rescanning it every round. The simulator
 * moves its jobs in and out one by one ({@link #enter}, {@link #leave}); the daemon, which learns its queue whole each
 * round from its store and its queue rules, makes it hold that queue ({@link #becomes}), so that in both worlds the
 * policy is handed the same kind of queue with the same kind of journal.
 *
 * <p>A job is told apart by its view's identity: a world hands a new {@link PendingJob} each time a job (re-)enters the
 * queue or what the policy sees of it changes, and the old view leaves the queue then.
 */
public final class WaitingQueue {
    private final Comparator<PendingJob> order;
    private RingList<PendingJob> jobs = new RingList<>();
    private List<PendingJob> view = Collections.unmodifiableList(jobs);
    private final QueueJournal journal;

    /**
     * @param order           the world's queue order, fixed for its life (its submission order)
     * @param journalCapacity how many changes the journal keeps: a policy that fell further behind rescans
     */
    public WaitingQueue(Comparator<PendingJob> order, int journalCapacity) {
        this.order = order;
        this.journal = new QueueJournal(order, journalCapacity);
    }

    /** A job enters the queue at its place in the queue's order (after the jobs equal to it). */
    public void enter(PendingJob job) {
        // arrivals come in submission order: most go to the tail without a search
        int at = jobs.isEmpty() || order.compare(jobs.get(jobs.size() - 1), job) < 0 ? jobs.size() : Collections.binarySearch(jobs, job, order);
        jobs.add(at < 0 ? -at - 1 : at, job);
        journal.entered(job);
    }

    /** A job leaves the queue; an {@link IllegalStateException} if this view of it is not there (a world's bug). */
    public void leave(PendingJob job) {
        // most starts are from the head: no search through a long queue for them
        int at = !jobs.isEmpty() && jobs.get(0) == job ? 0 : Collections.binarySearch(jobs, job, order);
        if (at < 0 || jobs.get(at) != job) throw new IllegalStateException("queue lost job " + job.id());
        jobs.remove(at);
        journal.left(job);
    }

    /**
     * Makes the queue hold exactly {@code next}, a whole queue in the queue's order (each job once), recording in the
     * journal the views that left and those that entered: one pass over both, for a world that learns its queue whole.
     * If {@code next} is not in the queue's order (queue rules reordered it: priorities, fair share between users) the
     * queue stays as it was and the answer is false: that round's policy gets no journal and rescans.
     */
    public boolean becomes(List<PendingJob> next) {
        for (int i = 1; i < next.size(); i++) if (order.compare(next.get(i - 1), next.get(i)) > 0) return false;
        RingList<PendingJob> merged = new RingList<>();
        int i = 0, k = 0;
        while (i < jobs.size() || k < next.size()) {
            PendingJob had = i < jobs.size() ? jobs.get(i) : null, now = k < next.size() ? next.get(k) : null;
            if (had != null && had == now) {
                merged.add(had);
                i++;
                k++;
            } else if (now == null || (had != null && order.compare(had, now) <= 0)) {
                journal.left(had); // gone, or replaced by a new view of the same job (which comes next)
                i++;
            } else {
                journal.entered(now);
                merged.add(now);
                k++;
            }
        }
        jobs = merged;
        view = Collections.unmodifiableList(merged);
        return true;
    }

    /** The waiting jobs in the queue's order (a view). */
    public List<PendingJob> jobs() { return view; }

    public QueueJournal journal() { return journal; }

    public int size() { return jobs.size(); }

    public boolean isEmpty() { return jobs.isEmpty(); }
}
