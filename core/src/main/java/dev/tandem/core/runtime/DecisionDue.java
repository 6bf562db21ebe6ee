package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policy.Policy;

/**
 * When a world asks its policy for a decision: one rule for every world, so that a policy is asked at the same moments
 * in the simulator and live (what {@code DaemonFidelityTest} checks job by job).
 * <ul>
 *   <li>Something that happened (a job arrived, ended, crashed or was cancelled, a GPU was taken or freed by work that
 *       is not the scheduler's) makes a decision due at once ({@link #happened}).</li>
 *   <li>Time alone (a periodic round, a running job's speed becoming measured) makes one due only from the moment the
 *       policy wants to be woken ({@link Policy#wakeUpAt}); a measurement only for a policy that acts on running jobs.</li>
 *   <li>A policy that decides in rounds of its own ({@link Policy#decidesInRounds}) is asked at each round's end once,
 *       as if something had happened there; the world makes sure it is woken then ({@link #roundEnd}).</li>
 *   <li>A decision is worth asking for only with a job waiting, or with running jobs for a policy that acts on them
 *       ({@link #worthAsking}).</li>
 *   <li>A policy that wants time between its decisions ({@link Policy#decisionPeriodSeconds}) decides at most once
 *       in each period of that length (periods start at its multiples on the world's clock): what comes in a period
 *       that has had its decision waits for the next period's start ({@link #ready}), when the world wakes
 *       ({@link #readyAt}). Periods on a fixed grid, rather than counted from the last decision, keep a decision that
 *       came a moment earlier in one world (live, a speed is measured at the first progress report after a minute)
 *       from moving every later one.</li>
 * </ul>
 * Times are the policy's seconds.
 */
public final class DecisionDue {
    private final Policy policy;
    private final double period;
    private boolean due = true;
    /** When the policy last decided (or the world last found nothing for it to decide). */
    private double lastDecision = Double.NEGATIVE_INFINITY;
    /** The end of the policy's own round it was last asked at. */
    private double roundEndAsked = Double.NaN;

    public DecisionDue(Policy policy, Cluster cluster) {
        this.policy = policy;
        this.period = policy.decisionPeriodSeconds(cluster);
        if (!(period >= 0) || Double.isInfinite(period)) throw new IllegalArgumentException("policy " + policy.name() + " wants decision periods of " + period + " s");
    }

    /** Something happened that the policy has not seen: a decision is due at the next scheduling point. */
    public void happened() {
        due = true;
    }

    /** A running job's speed became measured at {@code now}. */
    public void measured(double now) {
        if (policy.actsOnRunningJobs() && awake(now)) due = true;
    }

    /** A periodic round came at {@code now}. */
    public void periodic(double now) {
        if (awake(now)) due = true;
    }

    private boolean awake(double now) {
        return now >= policy.wakeUpAt();
    }

    /**
     * The end of the policy's own round that it has not been asked at yet, or +infinity (none, or a policy without
     * rounds): the world wakes at it ({@link #roundEnded}).
     */
    public double roundEnd() {
        if (!policy.decidesInRounds()) return Double.POSITIVE_INFINITY;
        double end = policy.wakeUpAt();
        return end == roundEndAsked ? Double.POSITIVE_INFINITY : end;
    }

    /**
     * Whether the policy's own round has ended by {@code now} and it was not asked at that end yet; if so a decision is
     * due, and that end counts as asked. An end the policy has since moved later has not come.
     */
    public boolean roundEnded(double now) {
        double end = roundEnd();
        if (end == Double.POSITIVE_INFINITY || now < end) return false;
        roundEndAsked = end;
        due = true;
        return true;
    }

    /** Whether a decision is due, whether or not it may be asked for yet. */
    public boolean pending() {
        return due;
    }

    /** Whether the policy is to be asked at {@code now}: a decision is due, and its period has had none yet. */
    public boolean ready(double now) {
        // a clock that went back is a new world's
        return due && (now >= nextPeriod() || now < lastDecision);
    }

    /** When a decision that is due may be asked for, +infinity if none is due. */
    public double readyAt() {
        return due ? nextPeriod() : Double.POSITIVE_INFINITY;
    }

    /** The start of the period after the last decision's: the earliest the next decision may come. */
    private double nextPeriod() {
        if (period == 0 || lastDecision == Double.NEGATIVE_INFINITY) return lastDecision;
        return (Math.floor(lastDecision / period) + 1) * period;
    }

    /** The policy decided at {@code now} (or there was nothing for it to decide): nothing is due. */
    public void decided(double now) {
        due = false;
        lastDecision = now;
    }

    /** Whether the policy has anything to decide about: a job waits, or jobs run and it acts on running jobs. */
    public boolean worthAsking(boolean anyWaiting, boolean anyRunning) {
        return anyWaiting || (policy.actsOnRunningJobs() && anyRunning);
    }
}
