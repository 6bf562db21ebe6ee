package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.RunningJournal;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The running jobs in a preemptive policy's rank order: priority first, then the policy's key (lower first), then
 * submission, then the order they started in (the snapshot's order of its running jobs). Where a job's key stays fixed
 * while it runs, except at times the policy names (a Tiresias bin changes when the job's service crosses a
 * threshold), and the world keeps a {@link RunningJournal}, the order is kept across rounds: a round costs the jobs
 * that started and stopped and the re-checks that fell due, not a view, a key and a sort of every running job (on
 * the Philly replay, 262,000 rounds of up to 256 running jobs each). Keys that change with time alone (SRTF's
 * remaining time) are rebuilt every round. Stateful: one per policy.
 */
final class RankedRunning implements Iterable<RankedRunning.Entry> {
    /** The policy's view of a running job. */
    interface Keys {
        /** The job's rank key now (lower ranks first). */
        double key(RunningJob r);

        /** When the key may change while the job keeps running, or +inf: it is asked again at the first round from then. */
        default double recheckAt(RunningJob r) { return Double.POSITIVE_INFINITY; }
    }

    /** A running job in rank order, with what the ranking compares copied beside it (read for every job every round). */
    static final class Entry {
        final Job job;
        final double key;
        final int priority;
        final double submitTime;
        /** When it started relative to the others: the last tie-break. */
        final long seq;
        /** When its key may change next ({@link Keys#recheckAt}), or +inf. */
        final double recheckAt;

        private Entry(Job job, double key, long seq, double recheckAt) {
            this.job = job;
            this.key = key;
            this.priority = job.priority();
            this.submitTime = job.submitTime();
            this.seq = seq;
            this.recheckAt = recheckAt;
        }

        String id() { return job.id(); }
    }

    private record Recheck(double at, Entry entry) {}

    /** Priority (higher first), key, submission, start. */
    private static final Comparator<Entry> ORDER = (a, b) -> {
        if (a.priority != b.priority) return Integer.compare(b.priority, a.priority);
        int c = Double.compare(a.key, b.key);
        if (c != 0) return c;
        c = Double.compare(a.submitTime, b.submitTime);
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    };

    static final Comparator<Entry> BY_START = Comparator.comparingLong(e -> e.seq);

    /**
     * The running jobs in rank order. A sorted array, not a tree: every round walks all of it (on 100,000 jobs on 2,000
     * GPUs a tree's iteration was two fifths of Tiresias' time), and a start or stop moves at most a few thousand
     * references.
     */
    private final List<Entry> sorted = new ArrayList<>();
    // following a journal: the order kept across rounds, each job's entry, and when keys may change
    private final Map<String, Entry> byId = new HashMap<>();
    private final PriorityQueue<Recheck> rechecks = new PriorityQueue<>((a, b) -> Double.compare(a.at(), b.at()));
    private RunningJournal journal;
    private long journalAt;
    private long nextSeq;

    /**
     * Brings the order up to date with the snapshot's running jobs; jobs that started since, and jobs whose re-check fell
     * due, are keyed.
     *
     * @param keysFixed whether keys change only at the re-check times {@code keys} names; if not, every round ranks
     *                  every running job anew
     */
    void update(SchedulerSnapshot s, Keys keys, boolean keysFixed) {
        RunningJournal j = keysFixed ? s.runningJournal() : null;
        if (j == null) { // every running job, every round
            journal = null;
            byId.clear();
            rechecks.clear();
            Map<Job, Entry> fresh = new IdentityHashMap<>(2 * s.running().size());
            List<Entry> inRunningOrder = new ArrayList<>(s.running().size());
            long seq = 0;
            for (RunningJob r : s.running()) {
                Entry e = new Entry(r.job(), keys.key(r), seq++, keys.recheckAt(r));
                fresh.put(e.job, e);
                inRunningOrder.add(e);
            }
            // the last round's rank order first, then the jobs that started since: keys change little between rounds,
            // so the sort finds the list almost in order and passes over it, where the snapshot's order made it merge
            // runs (two fifths of SRTF's time on 100,000 jobs); the order it ends in is the same (no two entries tie)
            List<Entry> next = new ArrayList<>(inRunningOrder.size());
            for (Entry old : sorted) {
                Entry e = fresh.remove(old.job);
                if (e != null) next.add(e);
            }
            for (Entry e : inRunningOrder) if (fresh.containsKey(e.job)) next.add(e);
            next.sort(ORDER);
            sorted.clear();
            sorted.addAll(next);
            return;
        }
        boolean followed = j == journal && j.readSince(journalAt, (job, started) -> {
            remove(job.id());
            // a job may have stopped again since (a later change says so); the world's view of it is as of now
            if (started) s.occupancy().job(job.id()).ifPresent(r -> add(r, keys, nextSeq++, s.now()));
        });
        if (!followed) {
            byId.clear();
            rechecks.clear();
            sorted.clear();
            journal = j;
            for (RunningJob r : s.running()) add(r, keys, nextSeq++, s.now()); // in the snapshot's order
        }
        journalAt = j.count();
        while (!rechecks.isEmpty() && rechecks.peek().at() <= s.now()) {
            Entry e = rechecks.poll().entry();
            if (byId.get(e.id()) != e) continue; // it stopped, or was keyed again since
            remove(e.id());
            add(s.occupancy().job(e.id()).orElseThrow(), keys, e.seq, s.now());
        }
    }

    private void add(RunningJob r, Keys keys, long seq, double now) {
        double at = keys.recheckAt(r);
        Entry e = new Entry(r.job(), keys.key(r), seq, at);
        byId.put(e.id(), e);
        sorted.add(-Collections.binarySearch(sorted, e, ORDER) - 1, e); // entries differ in seq: never found
        // a re-check time that has come (the policy's estimate of it may run a little early) is the next round's
        if (at < Double.POSITIVE_INFINITY) rechecks.add(new Recheck(at > now ? at : Math.nextUp(now), e));
    }

    private void remove(String id) {
        Entry e = byId.remove(id);
        if (e != null) sorted.remove(Collections.binarySearch(sorted, e, ORDER));
    }

    /** Best rank first. */
    @Override public Iterator<Entry> iterator() { return sorted.iterator(); }

    int size() { return sorted.size(); }

    /**
     * The earliest re-check still to come of a job that keeps running: {@code leaving} are the jobs this round
     * suspends. Re-checks of jobs that have stopped are dropped on the way.
     */
    double nextRecheck(Collection<Entry> leaving) {
        double next = Double.POSITIVE_INFINITY;
        if (journal == null) {
            for (Entry e : sorted) if (e.recheckAt < next && !leaving.contains(e)) next = e.recheckAt;
            return next;
        }
        List<Recheck> kept = new ArrayList<>();
        while (!rechecks.isEmpty()) {
            Recheck head = rechecks.peek();
            if (byId.get(head.entry().id()) != head.entry()) {
                rechecks.poll();
            } else if (leaving.contains(head.entry())) {
                kept.add(rechecks.poll()); // it stops only when the world applies the suspension
            } else {
                next = head.at();
                break;
            }
        }
        rechecks.addAll(kept);
        return next;
    }
}
