package dev.tandem.core.policies;

import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * Shortest remaining time first (preemptive, exclusive GPUs): at every scheduling point the jobs with the
 * least expected remaining solo time run; a running job with more remaining time than a queued one is
 * suspended to make room.
 */
public final class SrtfPolicy implements Policy {
    private final RankedQueue queued = new RankedQueue();
    private final RankedRunning running = new RankedRunning();

    @Override public String name() { return "srtf"; }

    /**
     * No: with time alone a running job's remaining time only falls (and a waiting job's stays), so no waiting job
     * comes to outrank a running one between arrivals and completions, and a decision at a mere speed observation or
     * at a round with nothing queued would change nothing. Asked only when the queue or the cluster changes (and at
     * rounds while jobs wait), SRTF makes the same decisions on the Philly replay in 0.7x the time.
     */
    @Override public boolean actsOnRunningJobs() { return false; }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        if (s.queue().isEmpty()) return List.of();
        running.updateEveryRound(s, s::soloSecondsOf); // falls as the job runs
        queued.update(s, p -> s.soloSeconds(p.job(), p.remainingIterations())); // fixed while a job waits
        return PreemptivePriority.schedule(s, running, queued, "srtf", new ArrayList<>(), new ArrayList<>());
    }
}
