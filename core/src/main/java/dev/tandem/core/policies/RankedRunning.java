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
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.DoubleUnaryOperator;

/**
 * The running jobs in a preemptive policy's rank order: priority first, then the policy's key (lower first), then
 * submission, then the order they started in (the snapshot's order of its running jobs). Where a job's key stays fixed
 * while it runs, except at times the policy names (a Tiresias bin changes when the job's service crosses a
 * threshold), and the world keeps a {@link RunningJournal}, the order is kept across rounds: a round costs the jobs
 * that started and stopped and the re-checks that fell due, not a view, a key and a sort of every running job (on
 * the Philly replay, 262,000 rounds of up to 256 running jobs each). Keys that change with time alone (SRTF's
 * remaining time) only fall while a job runs, except those of jobs of unknown length, which the journal names at every
 * decision ({@link RunningJournal#reshown}): with a journal, a key computed at an earlier round is an upper bound,
 * and only the jobs whose old key does not rank them before the best waiting job are keyed again
 * ({@link #updateEveryRound}, {@link #bringUpToDate}); without one, every running job is keyed anew every round.
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

    /**
     * A key that changes with time alone (SRTF's remaining time): for a job, its key as a function of its remaining
     * iterations. Asked once, when the job starts: what else the key depends on (its profile's solo speed) stays as it
     * was while the job runs, as the {@link RunningJournal} promises, and looking it up again for every job keyed again
     * each round was a quarter of SRTF's time on 100,000 jobs.
     */
    @FunctionalInterface
    interface TimeKey {
        DoubleUnaryOperator of(Job job);
    }

    /** A running job in rank order, with what the ranking compares copied beside it (read for every job every round). */
    static final class Entry {
        final Job job;
        /**
         * The key as of when it was last keyed: for a key that falls as the job runs, kept from an earlier round, an upper
         * bound of its key now ({@link #bringUpToDate}).
         */
        double key;
        final int priority;
        final int gpus;
        final double submitTime;
        /** When it started relative to the others: the last tie-break (its place in the snapshot's running order). */
        final long seq;
        /** When its key may change next ({@link Keys#recheckAt}), or +inf. */
        final double recheckAt;
        /** Where {@link #bringUpToDate} reads its remaining iterations, if the world offers that: else through its view. */
        private DoubleSupplier remaining;
        /** Its key from its remaining iterations ({@link TimeKey#of}), for {@link #bringUpToDate}. */
        private DoubleUnaryOperator keyOf;

        private Entry(Job job, double key, long seq, double recheckAt) {
            this.job = job;
            this.key = key;
            this.priority = job.priority();
            this.gpus = job.gpus();
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
    /** The GPUs all ranked jobs hold: a range of places is summed from whichever side is shorter ({@link #gpusIn}). */
    private int gpusHeld;
    /** Following a journal with a key that falls as jobs run: the key, for the jobs that start ({@link #bringUpToDate}). */
    private TimeKey fallingKey;
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
        fallingKey = null;
        if (s.runningJournal() == null) rankAnew(s, keys); // without a journal: every running job, every round
        else follow(s, s.runningJournal(), keys);
    }

    /** Brings the order up to date with the jobs that started and stopped since the last round, and the re-checks due. */
    private void follow(SchedulerSnapshot s, RunningJournal j, Keys keys) {
        boolean[] rekeyed = {false};
        boolean followed = j == journal && j.readSince(journalAt, new RunningJournal.Reader<>() {
            @Override public void changed(Job job, boolean started) {
                if (rekeyed[0]) { // jobs keyed again earlier in the journal: in order before one is looked up by it
                    sorted.sort(ORDER);
                    rekeyed[0] = false;
                }
                remove(job.id());
                // a job may have stopped again since (a later change says so); the world's view of it is as of now
                if (started) s.occupancy().job(job.id()).ifPresent(r -> add(s, r, keys, nextSeq++));
            }

            /**
             * A job of unknown length, whose remaining time may have risen: keyed again where the key is that time, and
             * put in its place once all are read (a key fixed between re-checks, Tiresias', does not depend on it).
             */
            @Override public void updated(Job job) {
                Entry e = byId.get(job.id());
                if (e == null || fallingKey == null) return;
                double left = remaining(s, e);
                if (Double.isNaN(left)) return; // it has stopped since: a later change says so
                e.key = e.keyOf.applyAsDouble(left);
                rekeyed[0] = true;
            }
        });
        // one sort of a nearly sorted list, not a removal and an insertion per job: without lengths every running job
        // is keyed again at every decision
        if (rekeyed[0]) sorted.sort(ORDER);
        if (!followed) {
            byId.clear();
            rechecks.clear();
            sorted.clear();
            gpusHeld = 0;
            journal = j;
            for (RunningJob r : s.running()) add(s, r, keys, nextSeq++); // in the snapshot's order
        }
        journalAt = j.count();
        while (rechecks.peekTime() <= s.now()) {
            Entry e = rechecks.poll();
            if (byId.get(e.id()) != e) continue; // it stopped, or was keyed again since
            remove(e.id());
            add(s, s.occupancy().job(e.id()).orElseThrow(), keys, e.seq);
        }
    }

    /**
     * Ranks the running jobs by a key that changes with time alone and only falls while a job runs (its remaining time).
     * Where the world keeps a journal (which promises that: see {@link RunningJournal}), a job is keyed when it starts,
     * and again only where {@link #bringUpToDate} finds that its old key might no longer rank it before the best waiting
     * job: in an overloaded cluster almost every running job does, and keying each of some 1,500 every decision was
     * most of SRTF's time on 100,000 jobs. Without a journal every running job is keyed anew every round.
     */
    void updateEveryRound(SchedulerSnapshot s, TimeKey key) {
        RunningJournal j = s.runningJournal();
        if (j != null) {
            fallingKey = key;
            follow(s, j, r -> key.of(r.job()).applyAsDouble(r.remainingIterations()));
            return;
        }
        fallingKey = null;
        rankAnew(s, r -> key.of(r.job()).applyAsDouble(r.remainingIterations()));
    }

    /**
     * Ranks every running job anew, in the snapshot's order of its running jobs (the last tie-break): what a world
     * without a journal costs every round (both worlds keep one; tests and benchmarks may not).
     */
    private void rankAnew(SchedulerSnapshot s, Keys keys) {
        journal = null;
        byId.clear();
        rechecks.clear();
        sorted.clear();
        gpusHeld = 0;
        long seq = 0;
        for (RunningJob r : s.running()) {
            Entry e = new Entry(r.job(), keys.key(r), seq++, keys.recheckAt(r));
            sorted.add(e);
            gpusHeld += e.gpus;
        }
        sorted.sort(ORDER);
    }

    /**
     * Keys again the entries from rank place {@code from} on, where they were keyed at an earlier round by a key that
     * falls as jobs run ({@link #updateEveryRound} following a journal; otherwise every key is current and this does
     * nothing). {@code from} is the first place whose (old) key does not rank its job before the best waiting job:
     * every job before it still ranks before that job, as its key can only have fallen. Afterwards the jobs that do not
     * rank before it are all keyed as of now and in their exact order; those keyed again move to their new places.
     */
    void bringUpToDate(SchedulerSnapshot s, int from) {
        int n = sorted.size();
        if (fallingKey == null || from >= n) return;
        for (int i = from; i < n; i++) {
            Entry e = sorted.get(i);
            double left = remaining(s, e);
            if (Double.isNaN(left)) throw new IllegalStateException("ranked job " + e.id() + " is not running");
            e.key = e.keyOf.applyAsDouble(left);
        }
        // in place, an insertion sort: old keys mostly keep the order, and a key that fell moves towards the front, also
        // before entries not keyed again (their order is by their keys as kept, which ORDER makes total: one result)
        for (int i = from; i < n; i++) {
            Entry e = sorted.get(i);
            if (i == 0 || ORDER.compare(sorted.get(i - 1), e) < 0) continue;
            int at = -Collections.binarySearch(sorted.subList(0, i), e, ORDER) - 1; // entries differ in seq: never found
            sorted.remove(i);
            sorted.add(at, e);
        }
    }

    /** A ranked job's remaining iterations now, from the world's reader where it offers one; NaN if it no longer runs. */
    private static double remaining(SchedulerSnapshot s, Entry e) {
        if (e.remaining != null) return e.remaining.getAsDouble();
        return s.occupancy().job(e.id()).map(RunningJob::remainingIterations).orElse(Double.NaN);
    }

    private void add(SchedulerSnapshot s, RunningJob r, Keys keys, long seq) {
        double now = s.now();
        double at = keys.recheckAt(r);
        Entry e;
        if (fallingKey != null) {
            DoubleUnaryOperator key = fallingKey.of(r.job());
            e = new Entry(r.job(), key.applyAsDouble(r.remainingIterations()), seq, at);
            e.keyOf = key;
            e.remaining = s.occupancy().remainingReader(e.id());
        } else {
            e = new Entry(r.job(), keys.key(r), seq, at);
        }
        byId.put(e.id(), e);
        sorted.add(-Collections.binarySearch(sorted, e, ORDER) - 1, e); // entries differ in seq: never found
        gpusHeld += e.gpus;
        // a re-check time that has come (the policy's estimate of it may run a little early) is the next round's
        if (at < Double.POSITIVE_INFINITY) rechecks.add(at > now ? at : Math.nextUp(now), e);
    }

    private void remove(String id) {
        Entry e = byId.remove(id);
        if (e != null) {
            sorted.remove(Collections.binarySearch(sorted, e, ORDER));
            gpusHeld -= e.gpus;
        }
    }

    /** Best rank first. */
    @Override public Iterator<Entry> iterator() { return sorted.iterator(); }

    int size() { return sorted.size(); }

    /** The running job at rank place {@code i} (0: the best). */
    Entry get(int i) { return sorted.get(i); }

    /**
     * The GPUs the running jobs at rank places {@code [from, to)} hold: a decision keeps the running jobs that rank
     * before the next waiting one in one step where they fit in what is left ({@link PreemptivePriority#schedule}),
     * instead of one by one through thousands. Summed over the range or, when that is shorter, over the places outside
     * it: the first range of a decision is most of the running jobs, and the order changes every decision (summing
     * every place each time was a sixth of Tiresias' time on 100,000 jobs).
     */
    int gpusIn(int from, int to) {
        int n = sorted.size(), sum = 0;
        if (to - from <= n - (to - from)) {
            for (int k = from; k < to; k++) sum += sorted.get(k).gpus;
            return sum;
        }
        for (int k = 0; k < from; k++) sum += sorted.get(k).gpus;
        for (int k = to; k < n; k++) sum += sorted.get(k).gpus;
        return gpusHeld - sum;
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
