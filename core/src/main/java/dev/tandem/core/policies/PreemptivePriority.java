package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Map;
import java.util.Set;

/**
 * Shared step of the preemptive non-sharing policies (SRTF, Tiresias): rank every job, queued or running, by
 * a priority; the best-ranked jobs that fit in the cluster's GPU count should run, the rest should wait.
 * Running jobs outside that set are preempted, queued jobs inside it are started.
 */
final class PreemptivePriority {
    /** A job's rank key: lower sorts first. */
    record Candidate(Job job, double key, boolean running) {}

    private PreemptivePriority() {}

    static List<Decision> schedule(SchedulerSnapshot s, List<Candidate> candidates, String policy) {
        // Rank by key, then submission, then the candidates' order (running jobs first, then queue order). Only the
        // best-ranked jobs up to the cluster's GPU count matter, so they come off a heap (O(n) to build) instead
        // of sorting every queued job at every scheduling point.
        Comparator<Integer> rank = Comparator.comparingDouble((Integer i) -> candidates.get(i).key())
                .thenComparingDouble(i -> candidates.get(i).job().submitTime()).thenComparingInt(i -> i);
        List<Integer> all = new ArrayList<>(candidates.size());
        for (int i = 0; i < candidates.size(); i++) all.add(i);
        PriorityQueue<Integer> heap = new PriorityQueue<>(rank);
        heap.addAll(all);
        int capacity = s.cluster().gpuCount();
        Set<String> admitted = new HashSet<>();
        List<Candidate> admittedInRank = new ArrayList<>();
        while (capacity > 0 && !heap.isEmpty()) {
            Candidate c = candidates.get(heap.poll());
            if (c.job().gpus() <= capacity) {
                admitted.add(c.job().id());
                admittedInRank.add(c);
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
        Map<String, PendingJob> queued = new HashMap<>();
        for (PendingJob p : s.queue()) queued.put(p.id(), p);
        List<PendingJob> toStart = new ArrayList<>();
        for (Candidate c : admittedInRank) {
            if (!c.running()) {
                PendingJob p = queued.get(c.job().id());
                if (p != null) toStart.add(p);
            }
        }
        Exclusive.startInOrder(view, toStart, false, policy + " rank", out);
        return out;
    }
}
