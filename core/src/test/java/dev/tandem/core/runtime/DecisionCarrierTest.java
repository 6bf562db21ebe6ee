package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.policy.Decision;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decision carried out in a world whose stops are over at once (the simulator's) and in one whose runs leave in
 * their own time (the daemon's): the same steps, the same verdicts, and in the second the stops and promises kept
 * until the runs have left.
 */
class DecisionCarrierTest {
    /** One node of four GPUs: job r runs on GPU 0; w and x (1 GPU each) wait. */
    final Cluster cluster = Cluster.homogeneous(1, 4, new GpuType("T", 24_576), 8, 1 << 16).withGangsOnOneNode();

    /** A world of jobs kept by id (its runs are the ids themselves), telling what its hands did. */
    final class TestWorld implements DecisionCarrier.World<String, String, String> {
        final Placements<String, String> placements = new Placements<>(cluster, id -> id);
        final Map<String, Lifecycle.Phase> phases = new HashMap<>();
        final Map<String, String> alone = new HashMap<>();
        final List<String> did = new ArrayList<>();
        /** Whether a stop is over at once. */
        final boolean instantStops;
        boolean ready = true;

        TestWorld(boolean instantStops) {
            this.instantStops = instantStops;
            for (String id : List.of("r", "w", "x")) phases.put(id, Lifecycle.Phase.WAITING);
            placements.place("r", new int[] {0});
            phases.put("r", Lifecycle.Phase.RUNNING);
        }

        @Override public Cluster cluster() { return cluster; }
        @Override public String key(String jobId) { return phases.containsKey(jobId) ? jobId : null; }
        @Override public String id(String job) { return job; }
        @Override public Lifecycle.Phase phase(String job) { return phases.get(job); }
        @Override public int gpus(String job) { return 1; }
        @Override public String runsAlone(String job) { return alone.get(job); }
        @Override public List<Integer> gpusOf(String run) { return java.util.Arrays.stream(placements.gpusOf(run)).boxed().toList(); }
        @Override public String busy(String run) { return alone.containsKey(run) ? PlacementRules.mustRunAlone(run, alone.get(run)) : null; }
        @Override public boolean ready() { return ready; }

        @Override public void start(String job, List<Integer> gpus, String reason, String detail) {
            placements.place(job, gpus);
            phases.put(job, Lifecycle.Phase.RUNNING);
            did.add("start " + job + " on " + gpus + " (" + detail + ")");
        }

        @Override public DecisionCarrier.Outcome stop(String job, DecisionCarrier.Stop why, List<Integer> moveTo, Decision step) {
            did.add("stop " + job + " " + why + (why == DecisionCarrier.Stop.MOVE ? " to " + moveTo : ""));
            if (!instantStops) return DecisionCarrier.Outcome.UNDERWAY;
            leaves(job);
            if (why == DecisionCarrier.Stop.MOVE) start(job, moveTo, step.reason(), null);
            return DecisionCarrier.Outcome.DONE;
        }

        /** The job's run has left its GPUs. */
        void leaves(String job) {
            placements.remove(job);
            phases.put(job, Lifecycle.Phase.WAITING);
        }

        @Override public void unknown(Decision step) { did.add("unknown " + step.jobId()); }
        @Override public void refused(String job, Decision step, String why) { did.add("refused " + job + ": " + why); }
        @Override public void redirected(String job, DecisionCarrier.Stopping now, Decision step) { did.add("redirected " + job + ": " + now); }
        @Override public void promiseDropped(String job) { did.add("dropped " + job); }
    }

    TestWorld instant = new TestWorld(true), live = new TestWorld(false);
    DecisionCarrier<String, String, String> atOnce = new DecisionCarrier<>(instant.placements), underway = new DecisionCarrier<>(live.placements);

    void decide(DecisionCarrier<String, String, String> carrier, TestWorld world, Decision... steps) {
        carrier.apply(List.of(steps), null, world, 0, "snapshot");
    }

    static Decision start(String id, int gpu) { return new Decision.Start(id, List.of(gpu), "go"); }

    static Decision preempt(String id) { return new Decision.Preempt(id, "room"); }

    static Decision migrate(String id, int gpu) { return new Decision.Migrate(id, List.of(gpu), "move"); }

    @Test
    void aStartOntoGpusAStopFreesWaitsForTheRunToLeaveWhereStopsTakeTime() {
        decide(atOnce, instant, preempt("r"), start("w", 0));
        assertThat(instant.did).containsExactly("stop r SUSPEND", "start w on [0] (snapshot)");
        assertThat(atOnce.promised()).isEmpty();
        assertThat(atOnce.stopping("r")).isNull();

        decide(underway, live, preempt("r"), start("w", 0));
        assertThat(live.did).containsExactly("stop r SUSPEND");
        assertThat(underway.promised()).containsExactly(Map.entry("w", List.of(0)));
        underway.keepPromises(live);
        assertThat(live.did).as("r still holds GPU 0").containsExactly("stop r SUSPEND");
        live.leaves("r");
        assertThat(underway.left("r")).isEqualTo(new DecisionCarrier.Stopping(DecisionCarrier.Stop.SUSPEND, List.of()));
        underway.keepPromises(live);
        assertThat(live.did).containsExactly("stop r SUSPEND", "start w on [0] (snapshot)");
        assertThat(underway.promised()).isEmpty();
    }

    @Test
    void aPromisedJobIsOnItsGpusForTheRulesOfTheSameDecision() {
        live.alone.put("w", "a new workload");
        instant.alone.put("w", "a new workload");
        decide(atOnce, instant, preempt("r"), start("w", 0), start("x", 0));
        decide(underway, live, preempt("r"), start("w", 0), start("x", 0));
        String refusal = "refused x: job w must run alone (a new workload)";
        assertThat(instant.did).containsExactly("stop r SUSPEND", "start w on [0] (snapshot)", refusal);
        assertThat(live.did).as("the same verdict before w runs").containsExactly("stop r SUSPEND", refusal);
    }

    @Test
    void aLaterStepAboutAJobBeingStoppedChangesWhereItGoesOnceItsRunHasLeft() {
        decide(underway, live, preempt("r"), start("r", 1));
        assertThat(live.did).containsExactly("stop r SUSPEND", "redirected r: Stopping[why=MOVE, moveTo=[1]]");
        decide(underway, live, preempt("r"));
        assertThat(live.did).last().isEqualTo("redirected r: Stopping[why=SUSPEND, moveTo=[]]");
        decide(underway, live, migrate("r", 2));
        assertThat(live.did).last().isEqualTo("redirected r: Stopping[why=MOVE, moveTo=[2]]");
        live.leaves("r");
        DecisionCarrier.Stopping left = underway.left("r");
        assertThat(left).isEqualTo(new DecisionCarrier.Stopping(DecisionCarrier.Stop.MOVE, List.of(2)));
        underway.moved(live, "r", left.moveTo(), "moved", "later snapshot");
        assertThat(live.did).last().isEqualTo("start r on [2] (later snapshot)");

        // where stops are over at once, the same steps find the job waiting or on its new GPUs
        decide(atOnce, instant, preempt("r"), start("r", 1));
        assertThat(instant.did).containsExactly("stop r SUSPEND", "start r on [1] (snapshot)");
    }

    @Test
    void aMoveWhoseGpusAreStillBeingFreedIsPromisedThem() {
        decide(underway, live, start("w", 1));
        decide(underway, live, preempt("w"), migrate("r", 1));
        assertThat(live.did).containsExactly("start w on [1] (snapshot)", "stop w SUSPEND", "stop r MOVE to [1]");
        live.leaves("r");
        underway.moved(live, "r", underway.left("r").moveTo(), "moved", "later");
        assertThat(live.did).as("w still holds GPU 1").hasSize(3);
        assertThat(underway.promised()).containsExactly(Map.entry("r", List.of(1)));
        live.leaves("w");
        underway.left("w");
        underway.keepPromises(live);
        assertThat(live.did).last().isEqualTo("start r on [1] (later)");
    }

    @Test
    void aLaterStepOfTheSameDecisionChangesAPromiseAndOneWhoseJobNoLongerWaitsIsDropped() {
        decide(underway, live, preempt("r"), start("w", 0), preempt("w"), start("x", 0), migrate("x", 0));
        assertThat(live.did).containsExactly("stop r SUSPEND");
        assertThat(underway.promised()).as("w suspended before it started waits again; x moved before it started is promised the new GPUs")
                .containsExactly(Map.entry("x", List.of(0)));
        live.phases.put("x", Lifecycle.Phase.DONE); // cancelled meanwhile
        live.leaves("r");
        underway.left("r");
        underway.keepPromises(live);
        assertThat(live.did).containsExactly("stop r SUSPEND", "dropped x");
        assertThat(underway.promised()).isEmpty();
    }

    @Test
    void aRunTheWorldStopsItselfIsNotThePolicysToRedirect() {
        underway.beganStopping("r", DecisionCarrier.Stop.END);
        decide(underway, live, preempt("r"), start("r", 1), migrate("r", 2));
        assertThat(live.did).isEmpty();
        assertThat(underway.stopping("r").why()).isEqualTo(DecisionCarrier.Stop.END);
    }

    @Test
    void theHoldsOfADecisionLastUntilTheNextOneOrTheirJobStarts() {
        Decision holdW = new Decision.Reserve("w", List.of(1), 60, "for w");
        Reservations.Changes first = underway.apply(List.of(holdW, new Decision.Reserve("x", List.of(2), 60, "for x")), null, live, 0, "snapshot");
        assertThat(first.begun()).extracting(Reservations.Hold::jobId).containsExactly("w", "x");
        Reservations.Changes second = underway.apply(List.of(holdW, start("x", 3)), null, live, 100, "snapshot");
        assertThat(second.begun()).as("w's hold goes on, x's ended with its start").isEmpty();
        assertThat(underway.holds().forJob("w")).as("named again: held since the first decision").get().extracting(Reservations.Hold::since).isEqualTo(0.0);
        assertThat(underway.holds().forJob("x")).as("its job started").isEmpty();
        Reservations.Changes third = underway.apply(List.of(), null, live, 200, "snapshot");
        assertThat(third.ended()).extracting(Reservations.Hold::jobId).containsExactly("w");
        assertThat(underway.holds().forJob("w")).as("not named again").isEmpty();
    }

    @Test
    void nothingStartsWhileTheWorldCannotStartRunsAndRefusalsAreTheRules() {
        live.ready = false;
        decide(underway, live, start("w", 1), start("nobody", 1), start("x", 9));
        assertThat(live.did).containsExactly("unknown nobody", "refused x: GPU 9 does not exist");
    }
}
