package dev.tandem.core.policies;

import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * Shortest job first (non-preemptive, exclusive GPUs): queued jobs ordered by job priority (higher first), then
 * by expected solo duration from their profile, ties by submission, then queue order ({@link RankedQueue}); a job
 * that does not fit is skipped so shorter ones behind it can start.
 */
public final class SjfPolicy implements Policy {
    /** The queue shortest first, kept across rounds: a waiting job's expected duration does not change. */
    private final RankedQueue queued = new RankedQueue();

    @Override public String name() { return "sjf"; }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        ClusterView view = new ClusterView(s);
        if (view.freeCount() == 0) return List.of();
        queued.update(s, p -> s.soloSeconds(p.job(), p.remainingIterations()));
        List<Decision> out = new ArrayList<>();
        for (RankedQueue.Entry e : queued.inOrder()) {
            if (view.freeCount() == 0) break;
            Exclusive.startIfIdle(view, e.job, "sjf shortest", out);
        }
        return out;
    }
}
