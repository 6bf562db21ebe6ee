package dev.tandem.core.policy;

import dev.tandem.core.model.Job;

import java.util.List;
import java.util.Optional;

/**
 * A scheduling policy: a snapshot of the world in, decisions out. Policies never see which world they run in
 * (simulator, local executor, Slurm); the world applies the decisions in order.
 */
public interface Policy {
    String name();

    List<Decision> decide(SchedulerSnapshot snapshot);

    /** Whether the policy may want to act even when nothing is queued (e.g. to split or preempt jobs). */
    default boolean actsOnRunningJobs() { return false; }

    /**
     * When the policy next wants to be asked although nothing happened, read after each decision. "Nothing happened":
     * no job arrived, ended or crashed, only time passed (a periodic round, a running job's speed becoming measured).
     * Every world asks it again at its first scheduling point at or after this time; events ask it at once. The default,
     * -infinity, is every scheduling point. A policy whose decision changes with time alone only at moments it can name
     * (Tiresias: a running job's service reaching the next queue's threshold, a waiting job starting to starve) returns
     * the earliest, and is spared the rounds before it; an estimate that comes early only costs a decision that
     * changes nothing, one that comes late would delay one.
     */
    default double wakeUpAt() { return Double.NEGATIVE_INFINITY; }

    /**
     * Whether {@link #wakeUpAt()} is the end of a round of the policy's own, at which every world must ask it exactly
     * (Gavel: an allocation holds for a round, arrivals and ends inside it wait for the next one), rather than the earliest
     * scheduling point worth asking at. Each world then asks it at that moment once, as if something had happened.
     */
    default boolean decidesInRounds() { return false; }

    /**
     * How often, at most, this policy wants to decide on {@code cluster}, in its seconds: once per period of this length
     * (periods at its multiples on the world's clock), what comes after a period's decision waiting for the next period
     * and decided together with whatever else came meanwhile, as Slurm's {@code sched_min_interval} spaces its runs.
     * Every world keeps it ({@code DecisionDue}). The default, 0, asks at every scheduling point with news.
     */
    default double decisionPeriodSeconds(dev.tandem.core.model.Cluster cluster) { return 0; }

    /**
     * Why this policy would not let {@code guest} join {@code host}, which runs alone on {@code hostGpus}: the conflicts
     * no policy pairs past ({@link Pairing}), then the policy's own rule (a slowdown bound, a threshold, a score) with
     * the thresholds its decisions use, and what its last decision judged of the host where a rule of the round kept it
     * from hosting (tandem: a job on the critical path); empty where it would pair them if they met in a round. The
     * daemon explains waiting jobs with it right after each decision, so an explanation cannot contradict the decisions.
     * The default is a policy that never shares a GPU.
     */
    default Optional<String> pairingRefusal(SchedulerSnapshot snapshot, Job guest, Job host, List<Integer> hostGpus) {
        return Optional.of("policy " + name() + " runs one job per GPU");
    }
}
