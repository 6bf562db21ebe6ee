package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.QueueJournal;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.core.policy.TimeHeap;

import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The queue in a preemptive policy's rank order (SRTF's remaining time, Tiresias' queue bins): priority first, then
 * the policy's key (lower first), then submission, then queue order. A waiting job's key is fixed while it waits,
 * except where the policy asks to look at it again at a later time (Tiresias promotes a job that waited too long), so
 * the order is kept across rounds: where the world keeps a {@link QueueJournal}, a round costs the queue's changes and
 * the re-checks that fell due, not a sort of every queued job (tens of thousands wait at every decision when the
 * Philly trace is replayed on 256 GPUs). Without a journal it is rebuilt every round. Stateful: one per policy.
 */
final class RankedQueue {
    /** The policy's view of a waiting job. */
    interface Keys {
        /** The job's rank key now (lower ranks first). */
        double key(PendingJob p);

        /** When the key may change while the job keeps waiting, or +inf: it is asked again at the first round from then. */
        default double recheckAt(PendingJob p) { return Double.POSITIVE_INFINITY; }
    }

    /** A waiting job in rank order. */
    static final class Entry implements TimeHeap.Placed {
        final PendingJob job;
        final double key;
        /** Queue position at a rebuild without a journal: the last tie-break there. */
        final long seq;
        /** Its place among the re-checks, -1 when it has none. */
        private int recheckAt = -1;

        Entry(PendingJob job, double key, long seq) {
            this.job = job;
            this.key = key;
            this.seq = seq;
        }

        @Override public void placedAt(int index) { recheckAt = index; }
    }

    private final Map<PendingJob, Entry> byJob = new IdentityHashMap<>();
    /**
     * Entries to key again, by when; an entry that leaves the queue or is keyed again leaves them at once. Left in until
     * due, they were most of the heap on a long replay (Tiresias re-checks every waiting job for starvation, and the
     * 100,000-job run suspends 627,000 times), and their times woke the policy for rounds that changed nothing.
     */
    private final TimeHeap<Entry> rechecks = new TimeHeap<>();
    private Comparator<Entry> order = order(null);
    /**
     * The waiting jobs in rank order, one set per gang size (index: GPUs; null for a size none had yet), so that a walk
     * can leave out the gangs too wide for what is left ({@link Walk}).
     */
    private final List<TreeSet<Entry>> bySize = new java.util.ArrayList<>();
    /** The gang sizes {@link #bySize} has a set for, ascending: a walk passes over these, not every size up to the widest. */
    private int[] sizes = new int[0];
    private QueueJournal journal;
    private long journalAt;

    /** Priority (higher first), key, submission, then the queue's order (where the world keeps a journal), then position. */
    private static Comparator<Entry> order(QueueJournal journal) {
        Comparator<PendingJob> queueOrder = journal == null ? null : journal.order();
        // written out rather than composed: every change to the queue costs a few dozen of these comparisons
        return (a, b) -> {
            Job x = a.job.job(), y = b.job.job();
            if (x.priority() != y.priority()) return Integer.compare(y.priority(), x.priority());
            int c = Double.compare(a.key, b.key);
            if (c != 0) return c;
            c = Double.compare(x.submitTime(), y.submitTime());
            if (c == 0 && queueOrder != null) c = queueOrder.compare(a.job, b.job);
            return c != 0 ? c : Long.compare(a.seq, b.seq);
        };
    }

    /** Brings the order up to date with the snapshot's queue; jobs new to it, and jobs whose re-check fell due, are keyed. */
    void update(SchedulerSnapshot s, Keys keys) {
        QueueJournal j = s.queueJournal();
        boolean followed = j != null && j == journal && j.readSince(journalAt, (p, entered) -> {
            if (entered) add(p, keys, 0, s.now());
            else remove(p);
        });
        if (!followed) {
            byJob.clear();
            rechecks.clear();
            journal = j;
            order = order(j);
            bySize.clear();
            sizes = new int[0];
            List<PendingJob> queue = s.queue();
            for (int i = 0; i < queue.size(); i++) add(queue.get(i), keys, i, s.now());
        }
        if (j != null) journalAt = j.count();
        while (rechecks.peekTime() <= s.now()) {
            Entry e = rechecks.poll(); // a waiting job's current entry: others have left the re-checks
            add(e.job, keys, e.seq, s.now()); // keyed again: the new entry replaces it
        }
    }

    private void add(PendingJob p, Keys keys, long seq, double now) {
        Entry e = new Entry(p, keys.key(p), seq);
        Entry old = byJob.put(p, e);
        if (old != null) forget(old);
        sizeOf(e).add(e);
        double at = keys.recheckAt(p);
        // a re-check time that has come (the policy's estimate of it may run a little early) is the next round's
        if (at < Double.POSITIVE_INFINITY) rechecks.add(at > now ? at : Math.nextUp(now), e);
    }

    private void remove(PendingJob p) {
        Entry e = byJob.remove(p);
        if (e != null) forget(e);
    }

    /** Takes an entry out of its size's set and the re-checks (the caller has taken it out of {@link #byJob}). */
    private void forget(Entry e) {
        sizeOf(e).remove(e);
        if (e.recheckAt >= 0) rechecks.remove(e.recheckAt);
    }

    /** The set of the entry's gang size, made on first use. */
    private TreeSet<Entry> sizeOf(Entry e) {
        int g = e.job.job().gpus();
        while (bySize.size() <= g) bySize.add(null);
        TreeSet<Entry> set = bySize.get(g);
        if (set == null) {
            bySize.set(g, set = new TreeSet<>(order));
            int at = -java.util.Arrays.binarySearch(sizes, g) - 1;
            int[] more = new int[sizes.length + 1];
            System.arraycopy(sizes, 0, more, 0, at);
            more[at] = g;
            System.arraycopy(sizes, at, more, at + 1, sizes.length - at);
            sizes = more;
        }
        return set;
    }

    /** The earliest re-check still to come (maybe of a job this round starts: the queue's journal says so next round), or +inf. */
    double nextRecheck() {
        return rechecks.peekTime();
    }

    /** A walk through the waiting jobs, best rank first. */
    Walk walk() { return new Walk(); }

    /**
     * The waiting jobs, best rank first, leaving out gangs wider than a limit the caller lowers as it gives GPUs out
     * ({@link #limit}): a merge of the per-size sets of the sizes within the limit. On an overloaded cluster most of a
     * long queue may be gangs wider than the few GPUs left, and a round walked past every one of them (SJF took 15
     * times FIFO's time on 100,000 jobs on 2,000 GPUs, 1.3 times with the limit).
     */
    final class Walk {
        /** The gang sizes walked (ascending), each one's iterator and next entry (null once its set is walked). */
        private final int[] gpus = sizes;
        private final java.util.Iterator<Entry>[] rest;
        private final Entry[] heads;
        private int limit = Integer.MAX_VALUE;

        @SuppressWarnings("unchecked")
        Walk() {
            rest = new java.util.Iterator[gpus.length];
            heads = new Entry[gpus.length];
            for (int i = 0; i < gpus.length; i++) {
                TreeSet<Entry> set = bySize.get(gpus[i]);
                if (set.isEmpty()) continue;
                rest[i] = set.iterator();
                heads[i] = rest[i].next();
            }
        }

        /** From now on leaves out jobs needing more than {@code gpus} GPUs (a limit only ever falls). */
        void limit(int gpus) { limit = Math.min(limit, gpus); }

        boolean hasNext() { return best() >= 0; }

        Entry next() {
            int i = best();
            if (i < 0) throw new java.util.NoSuchElementException();
            Entry e = heads[i];
            heads[i] = rest[i].hasNext() ? rest[i].next() : null;
            return e;
        }

        /** The index of the size whose next entry ranks first among the sizes within the limit, or -1. */
        private int best() {
            int best = -1;
            for (int i = 0; i < gpus.length && gpus[i] <= limit; i++) {
                if (heads[i] != null && (best < 0 || order.compare(heads[i], heads[best]) < 0)) best = i;
            }
            return best;
        }
    }
}
