package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Shared step of the preemptive non-sharing policies (SRTF, Tiresias): rank every job, queued or running, by
 * a key within each job priority (a higher priority always ranks first); the best-ranked jobs that fit in the
 * cluster's GPU count should run, the rest should wait.
 * Running jobs outside that set are preempted, queued jobs inside it are started.
 */
final class PreemptivePriority {
    private PreemptivePriority() {}

    /**
     * Rank by priority, key, submission, then running jobs before waiting ones (running jobs in the order they
     * started, waiting ones in queue order). Only the best-ranked jobs up to the cluster's GPU count matter: the
     * running jobs (at most one per GPU) come in order from {@code running}, the waiting ones from {@code queued},
     * and the two are merged until the GPUs are all given out.
     *
     * @param toStart   filled with the waiting jobs ranked to run (started unless no placement fits them)
     * @param suspended filled with the running jobs ranked out, in the order they started
     */
    static List<Decision> schedule(SchedulerSnapshot s, RankedRunning running, RankedQueue queued, String policy, List<PendingJob> toStart,
                                   List<RankedRunning.Entry> suspended) {
        int capacity = s.cluster().gpuCount();
        RankedQueue.Walk waiting = queued.walk();
        waiting.limit(capacity);
        RankedQueue.Entry nextWaiting = waiting.hasNext() ? waiting.next() : null;
        Iterator<RankedRunning.Entry> runs = running.iterator();
        RankedRunning.Entry nextRunning = runs.hasNext() ? runs.next() : null;
        while (capacity > 0 && (nextRunning != null || nextWaiting != null)) {
            if (nextWaiting == null || (nextRunning != null && ranksFirst(nextRunning, nextWaiting))) {
                int gpus = nextRunning.job.gpus();
                if (gpus <= capacity) capacity -= gpus;
                else suspended.add(nextRunning);
                nextRunning = runs.hasNext() ? runs.next() : null;
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
        for (; nextRunning != null; nextRunning = runs.hasNext() ? runs.next() : null) suspended.add(nextRunning);
        suspended.sort(RankedRunning.BY_START);
        return decisions(s, policy, toStart, suspended);
    }

    private static List<Decision> decisions(SchedulerSnapshot s, String policy, List<PendingJob> toStart, List<RankedRunning.Entry> suspended) {
        List<Decision> out = new ArrayList<>();
        ClusterView view = new ClusterView(s);
        for (RankedRunning.Entry r : suspended) {
            view.remove(r.id());
            out.add(new Decision.Preempt(r.id(), policy + ": outranked by a queued job"));
        }
        Exclusive.startInOrder(view, toStart, false, policy + " rank", out);
        return out;
    }

    /** Whether a running job ranks before a waiting one (among equals it does). */
    private static boolean ranksFirst(RankedRunning.Entry r, RankedQueue.Entry w) {
        Job b = w.job.job();
        if (r.priority != b.priority()) return r.priority > b.priority();
        int byKey = Double.compare(r.key, w.key);
        if (byKey != 0) return byKey < 0;
        return Double.compare(r.submitTime, b.submitTime()) <= 0;
    }
}
