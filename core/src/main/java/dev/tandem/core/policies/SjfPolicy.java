package dev.tandem.core.policies;

import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Shortest job first (non-preemptive, exclusive GPUs): queued jobs ordered by expected solo duration from
 * their profile, ties by submission; a job that does not fit is skipped so shorter ones behind it can start.
 */
public final class SjfPolicy implements Policy {
    @Override public String name() { return "sjf"; }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        List<PendingJob> order = new ArrayList<>(s.queue());
        order.sort(Comparator.comparingDouble((PendingJob p) -> s.soloSeconds(p.job(), p.remainingIterations()))
                .thenComparingDouble(p -> p.job().submitTime()));
        List<Decision> out = new ArrayList<>();
        Exclusive.startInOrder(new ClusterView(s), order, false, "sjf shortest", out);
        return out;
    }
}
