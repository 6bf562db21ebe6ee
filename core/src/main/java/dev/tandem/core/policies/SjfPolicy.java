package dev.tandem.core.policies;

import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * Shortest job first (non-preemptive, exclusive GPUs): queued jobs ordered by job priority (higher first), then
 * by expected solo duration from their profile (a job of unknown length: as long as it has run, which every world
 * shows it to need, {@link SchedulerSnapshot#unknownLengthIterations}), ties by submission, then queue order
 * ({@link RankedQueue}); a job that does not fit is skipped so shorter ones behind it can start.
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
        // gangs of `tooWide` GPUs or more find no room this round: placing jobs only takes idle GPUs away
        int tooWide = Integer.MAX_VALUE;
        RankedQueue.Walk w = queued.walk();
        while (true) {
            w.limit(Math.min(view.freeCount(), tooWide - 1));
            if (!w.hasNext()) break;
            RankedQueue.Entry e = w.next();
            int gpus = e.job.job().gpus();
            if (!Exclusive.startIfIdle(view, e.job, "sjf shortest", out) && view.findIdle(gpus).isEmpty()) tooWide = gpus;
        }
        return out;
    }
}
