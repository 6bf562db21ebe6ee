package dev.tandem.core.policies;

import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Shortest job first (non-preemptive, exclusive GPUs): queued jobs ordered by job priority (higher first), then
 * by expected solo duration from their profile, ties by submission; a job that does not fit is skipped so shorter
 * ones behind it can start.
 */
public final class SjfPolicy implements Policy {
    @Override public String name() { return "sjf"; }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        ClusterView view = new ClusterView(s);
        if (view.freeCount() == 0) return List.of();
        // shortest first, submission order among equals; a heap, because only the first few fit on the idle GPUs
        List<PendingJob> queue = s.queue();
        int n = queue.size();
        double[] solo = new double[n], submit = new double[n];
        int[] priority = new int[n];
        for (int i = 0; i < n; i++) {
            PendingJob p = queue.get(i);
            solo[i] = s.soloSeconds(p.job(), p.remainingIterations());
            submit[i] = p.job().submitTime();
            priority[i] = p.job().priority();
        }
        // one comparison method over arrays: this runs at every scheduling point for every queued job
        Comparator<Integer> byOrder = (a, b) -> {
            if (priority[a] != priority[b]) return Integer.compare(priority[b], priority[a]);
            int c = Double.compare(solo[a], solo[b]);
            if (c != 0) return c;
            c = Double.compare(submit[a], submit[b]);
            return c != 0 ? c : Integer.compare(a, b);
        };
        PriorityQueue<Integer> order = new PriorityQueue<>(Math.max(1, n), byOrder);
        for (int i = 0; i < n; i++) order.add(i);
        List<Decision> out = new ArrayList<>();
        while (!order.isEmpty() && view.freeCount() > 0) Exclusive.startIfIdle(view, queue.get(order.poll()), "sjf shortest", out);
        return out;
    }
}
