package dev.tandem.server.testing;

import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.List;

/**
 * A policy a test scripts: its first decision starts job 1 on GPU 0; then, at each decision where it is shown job 1
 * running, it takes the next of the given decisions (each once), and otherwise nothing. It acts on running jobs, so that
 * it is asked while job 1 runs and nothing waits. For the simulator ({@code Simulator.run}) and the daemon
 * ({@link ScriptedLoop}) alike.
 */
public final class AfterJobOneStarts implements Policy {
    private final List<List<Decision>> next;
    /** How many of {@link #next} were taken; -1 before job 1 was started. */
    private int taken = -1;

    @SafeVarargs
    public AfterJobOneStarts(List<Decision>... next) {
        this.next = List.of(next);
    }

    @Override public String name() { return "after-job-1-starts"; }

    @Override public boolean actsOnRunningJobs() { return true; }

    @Override public synchronized List<Decision> decide(SchedulerSnapshot s) {
        if (taken < 0) {
            taken = 0;
            return List.of(new Decision.Start("1", List.of(0), "first"));
        }
        boolean oneRuns = s.running().stream().anyMatch(r -> r.job().id().equals("1"));
        return taken < next.size() && oneRuns ? next.get(taken++) : List.of();
    }
}
