package dev.tandem.core.policy;

import java.util.List;

/**
 * A scheduling policy: a snapshot of the world in, decisions out. Policies never see which world they run in
 * (simulator, local executor, Slurm); the world applies the decisions in order.
 */
public interface Policy {
    String name();

    List<Decision> decide(SchedulerSnapshot snapshot);

    /** Whether the policy may want to act even when nothing is queued (e.g. to split or preempt jobs). */
    default boolean actsOnRunningJobs() { return false; }
}
