package dev.tandem.core.runtime;

import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** When both worlds ask their policy for a decision. */
class DecisionDueTest {
    /** A policy whose wishes the test sets. */
    static final class Wishes implements Policy {
        boolean actsOnRunning, inRounds;
        double wakeUpAt = Double.NEGATIVE_INFINITY;

        @Override public String name() { return "wishes"; }

        @Override public List<Decision> decide(SchedulerSnapshot s) { return List.of(); }

        @Override public boolean actsOnRunningJobs() { return actsOnRunning; }

        @Override public double wakeUpAt() { return wakeUpAt; }

        @Override public boolean decidesInRounds() { return inRounds; }
    }

    @Test
    void somethingThatHappenedIsDueAtOnceAndOnlyOnce() {
        DecisionDue due = new DecisionDue(new Wishes());
        assertThat(due.take()).as("a world starts by asking").isTrue();
        assertThat(due.take()).isFalse();
        due.happened();
        assertThat(due.pending()).isTrue();
        assertThat(due.pending()).as("looking does not take it").isTrue();
        assertThat(due.take()).isTrue();
        assertThat(due.pending()).isFalse();
    }

    @Test
    void timeAloneAsksOnlyFromWhenThePolicyWantsToBeWoken() {
        Wishes p = new Wishes();
        p.wakeUpAt = 100;
        DecisionDue due = new DecisionDue(p);
        due.take();
        due.periodic(99);
        assertThat(due.take()).isFalse();
        due.periodic(100);
        assertThat(due.take()).isTrue();

        due.measured(150);
        assertThat(due.take()).as("a measurement is news only to a policy that acts on running jobs").isFalse();
        p.actsOnRunning = true;
        due.measured(99);
        assertThat(due.take()).as("not before its wake-up").isFalse();
        due.measured(150);
        assertThat(due.take()).isTrue();
    }

    @Test
    void aPolicyDecidingInRoundsIsAskedAtEachRoundsEndOnce() {
        Wishes p = new Wishes();
        DecisionDue due = new DecisionDue(p);
        due.take();
        p.wakeUpAt = 360;
        assertThat(due.roundEnd()).as("a policy without rounds of its own").isInfinite();
        p.inRounds = true;
        assertThat(due.roundEnd()).isEqualTo(360);
        assertThat(due.roundEnded(359)).isFalse();
        assertThat(due.roundEnded(360)).isTrue();
        assertThat(due.take()).isTrue();
        assertThat(due.roundEnd()).as("asked at that end").isInfinite();
        assertThat(due.roundEnded(400)).isFalse();
        assertThat(due.take()).isFalse();
        p.wakeUpAt = 720; // its next round
        assertThat(due.roundEnd()).isEqualTo(720);
        assertThat(due.roundEnded(720.5)).isTrue();
    }

    @Test
    void aDecisionIsWorthAskingForWithAJobWaitingOrRunningJobsForAPolicyActingOnThem() {
        Wishes p = new Wishes();
        DecisionDue due = new DecisionDue(p);
        assertThat(due.worthAsking(true, false)).isTrue();
        assertThat(due.worthAsking(false, true)).isFalse();
        p.actsOnRunning = true;
        assertThat(due.worthAsking(false, true)).isTrue();
        assertThat(due.worthAsking(false, false)).isFalse();
    }
}
