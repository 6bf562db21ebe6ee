package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Shared step of the preemptive non-sharing policies (SRTF, Tiresias): rank every job, queued or running, by
 * a key within each job priority (a higher priority always ranks first); the best-ranked jobs that fit in the
 * cluster's GPU count should run, the rest should wait.
 * Running jobs outside that set are preempted, queued jobs inside it are started.
 */
final class PreemptivePriority {
    /**
     * A running job with its rank key (lower sorts first), and what the ranking compares copied beside it: every round
     * sorts every running job, so a comparison reads three fields instead of following the job.
     */
    static final class Candidate {
        final RunningJob running;
        final double key;
        private final int priority;
        private final double submitTime;
        /** Among the best-ranked jobs that fit (this round's schedule). */
        private boolean admitted;

        Candidate(RunningJob running, double key) {
            this.running = running;
            this.key = key;
            this.priority = running.job().priority();
            this.submitTime = running.job().submitTime();
        }

        RunningJob running() { return running; }

        /** Whether it keeps running after this round's schedule. */
        boolean admitted() { return admitted; }

        double key() { return key; }
    }

    private PreemptivePriority() {}

    /** Priority, key, submission. */
    private static final Comparator<Candidate> RUNNING_ORDER = (a, b) -> {
        if (a.priority != b.priority) return Integer.compare(b.priority, a.priority);
        int byKey = Double.compare(a.key, b.key);
        return byKey != 0 ? byKey : Double.compare(a.submitTime, b.submitTime);
    };

    /**
     * Rank by priority, key, submission, then running jobs before waiting ones (running jobs in the snapshot's order,
     * waiting ones in queue order). Only the best-ranked jobs up to the cluster's GPU count matter: the running jobs
     * (at most one per GPU) are sorted, the waiting ones come in order from {@code queued}, and the two are merged
     * until the GPUs are all given out.
     */
    static List<Decision> schedule(SchedulerSnapshot s, List<Candidate> running, RankedQueue queued, String policy) {
        return schedule(s, running, queued, policy, new ArrayList<>());
    }

    /** @param toStart filled with the waiting jobs ranked to run (started unless no placement fits them) */
    static List<Decision> schedule(SchedulerSnapshot s, List<Candidate> running, RankedQueue queued, String policy, List<PendingJob> toStart) {
        List<Candidate> sorted = new ArrayList<>(running); // a stable sort: the snapshot's order among equals
        sorted.sort(RUNNING_ORDER);
        int capacity = s.cluster().gpuCount();
        RankedQueue.Walk waiting = queued.walk();
        waiting.limit(capacity);
        RankedQueue.Entry nextWaiting = waiting.hasNext() ? waiting.next() : null;
        int nextRunning = 0;
        while (capacity > 0 && (nextRunning < sorted.size() || nextWaiting != null)) {
            boolean runningFirst = nextWaiting == null || (nextRunning < sorted.size() && ranksFirst(sorted.get(nextRunning), nextWaiting));
            if (runningFirst) {
                Candidate c = sorted.get(nextRunning++);
                int gpus = c.running.job().gpus();
                if (gpus <= capacity) {
                    c.admitted = true;
                    capacity -= gpus;
                }
            } else {
                PendingJob toQueue = nextWaiting.job;
                if (toQueue.job().gpus() <= capacity) {
                    toStart.add(toQueue);
                    capacity -= toQueue.job().gpus();
                }
                // only waiting jobs that fit in what is left can be admitted, and capacity only shrinks: the walk
                // leaves out wider gangs (an overloaded queue is long; without the limit a decision could walk all of it)
                waiting.limit(capacity);
                nextWaiting = waiting.hasNext() ? waiting.next() : null;
            }
        }
        List<Decision> out = new ArrayList<>();
        ClusterView view = new ClusterView(s);
        for (Candidate c : running) {
            if (!c.admitted) {
                view.remove(c.running().id());
                out.add(new Decision.Preempt(c.running().id(), policy + ": outranked by a queued job"));
            }
        }
        Exclusive.startInOrder(view, toStart, false, policy + " rank", out);
        return out;
    }

    /** Whether a running job ranks before a waiting one (among equals it does). */
    private static boolean ranksFirst(Candidate r, RankedQueue.Entry w) {
        Job b = w.job.job();
        if (r.priority != b.priority()) return r.priority > b.priority();
        int byKey = Double.compare(r.key, w.key);
        if (byKey != 0) return byKey < 0;
        return Double.compare(r.submitTime, b.submitTime()) <= 0;
    }
}
