package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** When both worlds ask their policy for a decision. */
class DecisionDueTest {
    /** A policy whose wishes the test sets. */
    static final class Wishes implements Policy {
        boolean actsOnRunning, inRounds;
        double wakeUpAt = Double.NEGATIVE_INFINITY, period;

        @Override public String name() { return "wishes"; }

        @Override public List<Decision> decide(SchedulerSnapshot s) { return List.of(); }

        @Override public boolean actsOnRunningJobs() { return actsOnRunning; }

        @Override public double wakeUpAt() { return wakeUpAt; }

        @Override public boolean decidesInRounds() { return inRounds; }

        @Override public double decisionPeriodSeconds(Cluster cluster) { return period; }
    }

    static final Cluster CLUSTER = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);

    /** Whether a decision is asked for at {@code now}; if so the policy decides then. */
    private static boolean asks(DecisionDue due, double now) {
        if (!due.ready(now)) return false;
        due.decided(now);
        return true;
    }

    @Test
    void somethingThatHappenedIsDueAtOnceAndOnlyOnce() {
        DecisionDue due = new DecisionDue(new Wishes(), CLUSTER);
        assertThat(asks(due, 0)).as("a world starts by asking").isTrue();
        assertThat(asks(due, 0)).isFalse();
        due.happened();
        assertThat(due.ready(1)).isTrue();
        assertThat(due.ready(1)).as("looking does not take it").isTrue();
        assertThat(asks(due, 1)).isTrue();
        assertThat(due.pending()).isFalse();
        assertThat(due.readyAt()).isInfinite();
    }

    @Test
    void timeAloneAsksOnlyFromWhenThePolicyWantsToBeWoken() {
        Wishes p = new Wishes();
        p.wakeUpAt = 100;
        DecisionDue due = new DecisionDue(p, CLUSTER);
        due.decided(0);
        due.periodic(99);
        assertThat(asks(due, 1000)).isFalse();
        due.periodic(100);
        assertThat(asks(due, 1000)).isTrue();

        due.measured(150);
        assertThat(asks(due, 1000)).as("a measurement is news only to a policy that acts on running jobs").isFalse();
        p.actsOnRunning = true;
        due.measured(99);
        assertThat(asks(due, 1000)).as("not before its wake-up").isFalse();
        due.measured(150);
        assertThat(asks(due, 1000)).isTrue();
    }

    @Test
    void aPolicyDecidingInRoundsIsAskedAtEachRoundsEndOnce() {
        Wishes p = new Wishes();
        DecisionDue due = new DecisionDue(p, CLUSTER);
        due.decided(0);
        p.wakeUpAt = 360;
        assertThat(due.roundEnd()).as("a policy without rounds of its own").isInfinite();
        p.inRounds = true;
        assertThat(due.roundEnd()).isEqualTo(360);
        assertThat(due.roundEnded(359)).isFalse();
        assertThat(due.roundEnded(360)).isTrue();
        assertThat(asks(due, 1000)).isTrue();
        assertThat(due.roundEnd()).as("asked at that end").isInfinite();
        assertThat(due.roundEnded(400)).isFalse();
        assertThat(asks(due, 1000)).isFalse();
        p.wakeUpAt = 720; // its next round
        assertThat(due.roundEnd()).isEqualTo(720);
        assertThat(due.roundEnded(720.5)).isTrue();
    }

    @Test
    void aPolicyWantingTimeBetweenDecisionsDecidesOncePerPeriodForAllThatCameMeanwhile() {
        Wishes p = new Wishes();
        p.period = 30;
        DecisionDue due = new DecisionDue(p, CLUSTER);
        assertThat(asks(due, 100)).isTrue(); // in the period [90, 120)
        due.happened(); // an arrival 5 s later
        assertThat(due.ready(105)).isFalse();
        assertThat(due.readyAt()).as("the world wakes at the next period's start").isEqualTo(120);
        due.happened(); // and another
        assertThat(due.ready(119.9)).isFalse();
        assertThat(asks(due, 120)).as("one decision for both").isTrue();
        assertThat(asks(due, 121)).isFalse();
        due.happened(); // in a period without a decision yet: at once
        assertThat(asks(due, 500)).isTrue();
        due.happened(); // the same period, [480, 510)
        assertThat(due.readyAt()).isEqualTo(510);
        due.happened(); // a clock that went back is a new world's
        assertThat(asks(due, 10)).isTrue();
        p.period = -1;
        assertThatThrownBy(() -> new DecisionDue(p, CLUSTER)).hasMessageContaining("decision periods of -1.0 s");
    }

    @Test
    void aDecisionIsWorthAskingForWithAJobWaitingOrRunningJobsForAPolicyActingOnThem() {
        Wishes p = new Wishes();
        DecisionDue due = new DecisionDue(p, CLUSTER);
        assertThat(due.worthAsking(true, false)).isTrue();
        assertThat(due.worthAsking(false, true)).isFalse();
        p.actsOnRunning = true;
        assertThat(due.worthAsking(false, true)).isTrue();
        assertThat(due.worthAsking(false, false)).isFalse();
    }
}
