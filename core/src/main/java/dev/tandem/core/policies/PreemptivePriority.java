package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
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
        int runs = running.size(), next = 0; // the next running job in rank order
        if (nextWaiting != null) running.bringUpToDate(s, firstNotBefore(running, 0, runs, nextWaiting));
        while (capacity > 0 && (next < runs || nextWaiting != null)) {
            if (next < runs && (nextWaiting == null || ranksFirst(running.get(next), nextWaiting))) {
                // the running jobs that rank before the next waiting one are kept at once where they all fit in what is
                // left (none of them can then find too little): on 2,000 GPUs a decision passed over some 1,500 of them
                int end = nextWaiting == null ? runs : firstNotBefore(running, next, runs, nextWaiting);
                int held = running.gpusIn(next, end);
                if (held <= capacity) {
                    capacity -= held;
                    next = end;
                    continue;
                }
                for (; next < end && capacity > 0; next++) { // waiting jobs ranked before took GPUs: one by one
                    RankedRunning.Entry r = running.get(next);
                    int gpus = r.gpus;
                    if (gpus <= capacity) capacity -= gpus;
                    else suspended.add(r);
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
        for (; next < runs; next++) suspended.add(running.get(next));
        suspended.sort(RankedRunning.BY_START);
        return decisions(s, policy, toStart, suspended);
    }

    private static List<Decision> decisions(SchedulerSnapshot s, String policy, List<PendingJob> toStart, List<RankedRunning.Entry> suspended) {
        List<Decision> out = new ArrayList<>();
        ClusterView view = new ClusterView(s);
        String outranked = suspended.isEmpty() ? null : policy + ": outranked by a queued job"; // one text for all of them
        for (RankedRunning.Entry r : suspended) {
            view.remove(r.id());
            out.add(new Decision.Preempt(r.id(), outranked));
        }
        Exclusive.startInOrder(view, toStart, false, policy + " rank", out);
        return out;
    }

    /**
     * The first rank place in {@code [from, to)} whose running job does not rank before {@code w}, or {@code to}: the
     * running jobs that do are a prefix of the rank order (priority, then key, then submission), so a binary search.
     */
    private static int firstNotBefore(RankedRunning running, int from, int to, RankedQueue.Entry w) {
        int lo = from, hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ranksFirst(running.get(mid), w)) lo = mid + 1;
            else hi = mid;
        }
        return lo;
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
