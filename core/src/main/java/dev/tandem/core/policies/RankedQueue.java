package dev.tandem.core.policies;

import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.QueueJournal;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
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
    static final class Entry {
        final PendingJob job;
        final double key;
        /** Queue position at a rebuild without a journal: the last tie-break there. */
        final long seq;

        Entry(PendingJob job, double key, long seq) {
            this.job = job;
            this.key = key;
            this.seq = seq;
        }
    }

    private record Recheck(double at, Entry entry) {}

    private final Map<PendingJob, Entry> byJob = new IdentityHashMap<>();
    private final PriorityQueue<Recheck> rechecks = new PriorityQueue<>(Comparator.comparingDouble(Recheck::at));
    private TreeSet<Entry> ordered = new TreeSet<>(order(null));
    private QueueJournal journal;
    private long journalAt;

    private static Comparator<Entry> order(QueueJournal journal) {
        Comparator<Entry> byRank = Comparator.comparingInt((Entry e) -> -e.job.job().priority()).thenComparingDouble(e -> e.key)
                .thenComparingDouble(e -> e.job.job().submitTime());
        return journal == null ? byRank.thenComparingLong(e -> e.seq)
                : byRank.thenComparing((a, b) -> journal.order().compare(a.job, b.job)).thenComparingLong(e -> e.seq);
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
            ordered = new TreeSet<>(order(j));
            List<PendingJob> queue = s.queue();
            for (int i = 0; i < queue.size(); i++) add(queue.get(i), keys, i, s.now());
        }
        if (j != null) journalAt = j.count();
        while (!rechecks.isEmpty() && rechecks.peek().at() <= s.now()) {
            Entry e = rechecks.poll().entry();
            if (byJob.get(e.job) != e) continue; // it left the queue, or was keyed again since
            ordered.remove(e);
            byJob.remove(e.job);
            add(e.job, keys, e.seq, s.now());
        }
    }

    private void add(PendingJob p, Keys keys, long seq, double now) {
        Entry e = new Entry(p, keys.key(p), seq);
        Entry old = byJob.put(p, e);
        if (old != null) ordered.remove(old);
        ordered.add(e);
        double at = keys.recheckAt(p);
        // a re-check time that has come (the policy's estimate of it may run a little early) is the next round's
        if (at < Double.POSITIVE_INFINITY) rechecks.add(new Recheck(at > now ? at : Math.nextUp(now), e));
    }

    private void remove(PendingJob p) {
        Entry e = byJob.remove(p);
        if (e != null) ordered.remove(e);
    }

    /** The earliest re-check still to come (maybe of a job that has left the queue since), or +inf. */
    double nextRecheck() {
        return rechecks.isEmpty() ? Double.POSITIVE_INFINITY : rechecks.peek().at();
    }

    /** The waiting jobs, best rank first. */
    Iterable<Entry> inOrder() { return ordered; }
}
