package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.RunningJournal;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.core.policy.TimeHeap;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The running jobs in a preemptive policy's rank order: priority first, then the policy's key (lower first), then
 * submission, then the order they started in (the snapshot's order of its running jobs). Where a job's key stays fixed
 * while it runs, except at times the policy names (a Tiresias bin changes when the job's service crosses a
 * threshold), and the world keeps a {@link RunningJournal}, the order is kept across rounds: a round costs the jobs
 * that started and stopped and the re-checks that fell due, not a view, a key and a sort of every running job (on
 * the Philly replay, 262,000 rounds of up to 256 running jobs each). Keys that change with time alone (SRTF's
 * remaining time) are computed anew every round, for entries kept while their jobs run ({@link #updateEveryRound}).
 * Stateful: one per policy.
 */
final class RankedRunning implements Iterable<RankedRunning.Entry> {
    /** The policy's view of a running job. */
    interface Keys {
        /** The job's rank key now (lower ranks first). */
        double key(RunningJob r);

        /** When the key may change while the job keeps running, or +inf: it is asked again at the first round from then. */
        default double recheckAt(RunningJob r) { return Double.POSITIVE_INFINITY; }
    }

    /** A key that changes with time alone (SRTF's remaining time), from what the world says of a running job. */
    @FunctionalInterface
    interface TimeKey {
        double key(Job job, double remainingIterations);
    }

    /** A running job in rank order, with what the ranking compares copied beside it (read for every job every round). */
    static final class Entry {
        final Job job;
        /** The key as of the last round that ranked it (every round for keys that change with time alone). */
        double key;
        final int priority;
        final double submitTime;
        /** When it started relative to the others: the last tie-break (its place in the snapshot's running order). */
        long seq;
        /** When its key may change next ({@link Keys#recheckAt}), or +inf. */
        double recheckAt;
        /** The last round that ranked it anew ({@link #rankAnew}). */
        private long rankedIn;

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
    // ranking every running job every round: each job's entry, kept while it runs, and the rounds so far
    private final Map<Job, Entry> everyRound = new IdentityHashMap<>();
    private long rounds;
    /** {@link #gpusBefore} each place, valid while {@code summed} (every change of the order clears it). */
    private int[] gpusBefore = new int[1];
    private boolean summed;
    private final TimeHeap<Entry> rechecks = new TimeHeap<>();
    private RunningJournal journal;
    private long journalAt;
    private long nextSeq;

    /**
     * Brings the order up to date with the snapshot's running jobs, for keys that change only at the re-check times
     * {@code keys} names (keys that change with time alone: {@link #updateEveryRound}); jobs that started since, and jobs
     * whose re-check fell due, are keyed.
     */
    void update(SchedulerSnapshot s, Keys keys) {
        RunningJournal j = s.runningJournal();
        if (j == null) { // without a journal: every running job, every round
            rankAnew(sink -> {
                for (RunningJob r : s.running()) sink.put(r.job(), keys.key(r), keys.recheckAt(r));
            });
            return;
        }
        everyRound.clear(); // the journal's entries from here on
        boolean followed = j == journal && j.readSince(journalAt, (job, started) -> {
            remove(job.id());
            // a job may have stopped again since (a later change says so); the world's view of it is as of now
            if (started) s.occupancy().job(job.id()).ifPresent(r -> add(r, keys, nextSeq++, s.now()));
        });
        if (!followed) {
            byId.clear();
            rechecks.clear();
            sorted.clear();
            summed = false;
            journal = j;
            for (RunningJob r : s.running()) add(r, keys, nextSeq++, s.now()); // in the snapshot's order
        }
        journalAt = j.count();
        while (rechecks.peekTime() <= s.now()) {
            Entry e = rechecks.poll();
            if (byId.get(e.id()) != e) continue; // it stopped, or was keyed again since
            remove(e.id());
            add(s.occupancy().job(e.id()).orElseThrow(), keys, e.seq, s.now());
        }
    }

    /**
     * Ranks every running job anew by a key that changes with time alone: its remaining time, read without a view of
     * each job where the world allows ({@link dev.tandem.core.policy.Occupancy#readRunning}).
     */
    void updateEveryRound(SchedulerSnapshot s, TimeKey key) {
        rankAnew(sink -> {
            if (!s.occupancy().readRunning((job, startedAt, remaining, attained, lengthKnown) ->
                    sink.put(job, key.key(job, remaining), Double.POSITIVE_INFINITY))) {
                for (RunningJob r : s.running()) sink.put(r.job(), key.key(r.job(), r.remainingIterations()), Double.POSITIVE_INFINITY);
            }
        });
    }

    /** Where a round hands each running job, in the snapshot's order, with its key and re-check time. */
    @FunctionalInterface
    private interface Sink {
        void put(Job job, double key, double recheckAt);
    }

    /**
     * Ranks every running job anew: {@code running} hands each to a sink, in the snapshot's order. A job that ran at the
     * last such round keeps its entry (its key, re-check time and place in the running order brought up to date), so a
     * round costs a look-up per running job, not an entry and a map of all of them. The last round's rank order comes
     * first, then the jobs that started since: keys change little between rounds, so the sort finds the list almost in
     * order and passes over it, where the snapshot's order made it merge runs (two fifths of SRTF's time on 100,000
     * jobs); the order it ends in is the same (no two entries tie).
     */
    private void rankAnew(java.util.function.Consumer<Sink> running) {
        journal = null;
        byId.clear();
        rechecks.clear();
        long round = ++rounds;
        List<Entry> started = new ArrayList<>();
        long[] place = {0};
        running.accept((job, key, recheckAt) -> {
            Entry e = everyRound.get(job);
            if (e == null) {
                e = new Entry(job, key, 0, recheckAt);
                everyRound.put(job, e);
                started.add(e);
            }
            e.key = key;
            e.recheckAt = recheckAt;
            e.seq = place[0]++;
            e.rankedIn = round;
        });
        int kept = 0;
        for (int i = 0; i < sorted.size(); i++) {
            Entry e = sorted.get(i);
            if (e.rankedIn == round) sorted.set(kept++, e);
            else if (everyRound.get(e.job) == e) everyRound.remove(e.job); // it stopped (an entry of the journal's is in no map here)
        }
        sorted.subList(kept, sorted.size()).clear();
        sorted.addAll(started);
        sorted.sort(ORDER);
        summed = false;
    }

    private void add(RunningJob r, Keys keys, long seq, double now) {
        double at = keys.recheckAt(r);
        Entry e = new Entry(r.job(), keys.key(r), seq, at);
        byId.put(e.id(), e);
        sorted.add(-Collections.binarySearch(sorted, e, ORDER) - 1, e); // entries differ in seq: never found
        summed = false;
        // a re-check time that has come (the policy's estimate of it may run a little early) is the next round's
        if (at < Double.POSITIVE_INFINITY) rechecks.add(at > now ? at : Math.nextUp(now), e);
    }

    private void remove(String id) {
        Entry e = byId.remove(id);
        if (e != null) {
            sorted.remove(Collections.binarySearch(sorted, e, ORDER));
            summed = false;
        }
    }

    /** Best rank first. */
    @Override public Iterator<Entry> iterator() { return sorted.iterator(); }

    int size() { return sorted.size(); }

    /** The running job at rank place {@code i} (0: the best). */
    Entry get(int i) { return sorted.get(i); }

    /**
     * The GPUs the running jobs ranked before place {@code i} hold, summed once after the order last changed: a decision
     * keeps the running jobs that rank before the next waiting one in one step where they fit in what is left
     * ({@link PreemptivePriority#schedule}), instead of one by one through thousands.
     */
    int gpusBefore(int i) {
        if (!summed) {
            if (gpusBefore.length < sorted.size() + 1) gpusBefore = new int[sorted.size() + 1 + (sorted.size() >> 1)];
            for (int k = 0; k < sorted.size(); k++) gpusBefore[k + 1] = gpusBefore[k] + sorted.get(k).job.gpus();
            summed = true;
        }
        return gpusBefore[i];
    }

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
        record Recheck(double at, Entry entry) {}
        List<Recheck> kept = new ArrayList<>();
        while (!rechecks.isEmpty()) {
            Entry head = rechecks.peek();
            if (byId.get(head.id()) != head) {
                rechecks.poll();
            } else if (leaving.contains(head)) {
                kept.add(new Recheck(rechecks.peekTime(), rechecks.poll())); // it stops only when the world applies the suspension
            } else {
                next = rechecks.peekTime();
                break;
            }
        }
        for (Recheck r : kept) rechecks.add(r.at(), r.entry());
        return next;
    }
}
