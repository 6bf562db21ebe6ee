package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Shared step of the preemptive non-sharing policies (SRTF, Tiresias): rank every job, queued or running, by
 * a key within each job priority (a higher priority always ranks first); the best-ranked jobs that fit in the
 * cluster's GPU count should run, the rest should wait.
 * Running jobs outside that set are preempted, queued jobs inside it are started.
 */
final class PreemptivePriority {
    /** A job's rank key (lower sorts first); {@code queued} is the waiting job, null for a running one. */
    record Candidate(Job job, double key, PendingJob queued) {
        static Candidate running(RunningJob r, double key) { return new Candidate(r.job(), key, null); }

        static Candidate waiting(PendingJob p, double key) { return new Candidate(p.job(), key, p); }

        boolean isRunning() { return queued == null; }
    }

    private PreemptivePriority() {}

    static List<Decision> schedule(SchedulerSnapshot s, List<Candidate> candidates, String policy) {
        // Rank by priority, key, submission, then the candidates' order (running jobs first, then queue order). Only the
        // best-ranked jobs up to the cluster's GPU count matter, so they come off a heap instead of a sort of every
        // queued job at every scheduling point.
        Comparator<Integer> rank = Comparator.comparingInt((Integer i) -> -candidates.get(i).job().priority())
                .thenComparingDouble(i -> candidates.get(i).key())
                .thenComparingDouble(i -> candidates.get(i).job().submitTime()).thenComparingInt(i -> i);
        PriorityQueue<Integer> heap = new PriorityQueue<>(Math.max(1, candidates.size()), rank);
        for (int i = 0; i < candidates.size(); i++) heap.add(i);
        int capacity = s.cluster().gpuCount();
        Set<String> admitted = new HashSet<>();
        List<PendingJob> toStart = new ArrayList<>();
        while (capacity > 0 && !heap.isEmpty()) {
            Candidate c = candidates.get(heap.poll());
            if (c.job().gpus() <= capacity) {
                admitted.add(c.job().id());
                if (!c.isRunning()) toStart.add(c.queued());
                capacity -= c.job().gpus();
            }
        }
        List<Decision> out = new ArrayList<>();
        ClusterView view = new ClusterView(s);
        for (RunningJob r : s.running()) {
            if (!admitted.contains(r.id())) {
                view.remove(r.id());
                out.add(new Decision.Preempt(r.id(), policy + ": outranked by a queued job"));
            }
        }
        Exclusive.startInOrder(view, toStart, false, policy + " rank", out);
        return out;
    }
}
