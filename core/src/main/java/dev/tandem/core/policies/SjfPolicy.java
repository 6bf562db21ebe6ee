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
        double[] solo = new double[queue.size()];
        for (int i = 0; i < solo.length; i++) solo[i] = s.soloSeconds(queue.get(i).job(), queue.get(i).remainingIterations());
        PriorityQueue<Integer> order = new PriorityQueue<>(Math.max(1, solo.length), Comparator.comparingInt((Integer i) -> -queue.get(i).job().priority())
                .thenComparingDouble(i -> solo[i]).thenComparingDouble(i -> queue.get(i).job().submitTime()).thenComparingInt(i -> i));
        for (int i = 0; i < solo.length; i++) order.add(i);
        List<Decision> out = new ArrayList<>();
        while (!order.isEmpty() && view.freeCount() > 0) Exclusive.startIfIdle(view, queue.get(order.poll()), "sjf shortest", out);
        return out;
    }
}
