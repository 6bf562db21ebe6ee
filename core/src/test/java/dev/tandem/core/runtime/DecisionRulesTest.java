package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.policy.Decision;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The one check of a decision's step: where the job must be, then where it may go. */
class DecisionRulesTest {
    /** One node of four GPUs: job r runs on GPU 0, gang h on GPUs 2-3; w (1 GPU) and g (2 GPUs) wait. */
    final Cluster cluster = Cluster.homogeneous(1, 4, new GpuType("T", 24_576), 8, 1 << 16).withGangsOnOneNode();
    final Set<String> waiting = new HashSet<>(Set.of("w", "g"));
    final Map<String, List<Integer>> running = new HashMap<>(Map.of("r", List.of(0), "h", List.of(2, 3)));
    final Map<String, Integer> gpus = Map.of("r", 1, "h", 2, "w", 1, "g", 2);
    final Map<String, String> alone = new HashMap<>();
    final Set<String> done = Set.of("d");

    final DecisionRules.World world = new DecisionRules.World() {
        @Override public Cluster cluster() { return cluster; }
        @Override public Lifecycle.Phase phase(String id) {
            return waiting.contains(id) ? Lifecycle.Phase.WAITING : running.containsKey(id) ? Lifecycle.Phase.RUNNING : done.contains(id) ? Lifecycle.Phase.DONE : null;
        }
        @Override public int gpus(String id) { return gpus.get(id); }
        @Override public String runsAlone(String id) { return alone.get(id); }
        @Override public List<PlacementRules.Tenant> tenantsOn(int gpu, String except) {
            return running.entrySet().stream().filter(e -> e.getValue().contains(gpu) && !e.getKey().equals(except))
                    .map(e -> new PlacementRules.Tenant(e.getKey(), e.getValue(), null)).toList();
        }
    };

    String verdict(Decision d) { return DecisionRules.refusal(d, world, List.of()).orElse("ok"); }

    @Test
    void aStartNeedsAWaitingJobAndAPlaceTheRulesAccept() {
        assertThat(verdict(new Decision.Start("w", List.of(1), ""))).isEqualTo("ok");
        assertThat(verdict(new Decision.Start("w", List.of(0), ""))).as("next to r").isEqualTo("ok");
        assertThat(verdict(new Decision.Start("r", List.of(1), ""))).isEqualTo("job r is running: only a waiting job is started");
        assertThat(verdict(new Decision.Start("x", List.of(1), ""))).as("not shown to the policy").isEqualTo("job x is not waiting: only a waiting job is started");
        assertThat(verdict(new Decision.Start("d", List.of(1), ""))).isEqualTo("job d is done: only a waiting job is started");
        assertThat(verdict(new Decision.Start("g", List.of(0, 1), ""))).isEqualTo("a gang shares only with a gang on the same GPUs (job r runs on [0])");
        alone.put("w", "it ran out of memory next to a partner");
        assertThat(verdict(new Decision.Start("w", List.of(0), ""))).isEqualTo("it ran out of memory next to a partner");
    }

    @Test
    void aPreemptionOrMoveNeedsARunningJobAndAMoveLeavesItsOwnGpusBehind() {
        assertThat(verdict(new Decision.Preempt("r", ""))).isEqualTo("ok");
        assertThat(verdict(new Decision.Preempt("w", ""))).isEqualTo("job w is waiting: only a running job is suspended or moved");
        assertThat(verdict(new Decision.Migrate("x", List.of(1), ""))).isEqualTo("job x is not running: only a running job is suspended or moved");
        assertThat(verdict(new Decision.Preempt("d", ""))).isEqualTo("job d is done: only a running job is suspended or moved");
        // h moves onto GPUs 1-2: its own GPU 2 does not count against it
        assertThat(verdict(new Decision.Migrate("h", List.of(1, 2), ""))).isEqualTo("ok");
        assertThat(verdict(new Decision.Migrate("h", List.of(0, 1), ""))).isEqualTo("a gang shares only with a gang on the same GPUs (job r runs on [0])");
    }

    @Test
    void aHoldIsCheckedByTheReservationRules() {
        assertThat(verdict(new Decision.Reserve("g", List.of(0, 1), 60, ""))).as("held GPUs may be busy").isEqualTo("ok");
        assertThat(verdict(new Decision.Reserve("r", List.of(0), 60, ""))).isEqualTo("job r is not waiting: GPUs are held only for a job in the queue");
        assertThat(DecisionRules.refusal(new Decision.Reserve("w", List.of(1), 60, ""), world, List.of(new Decision.Reserve("g", List.of(0, 1), 60, ""))))
                .contains("GPU 1 is already held for job g");
    }

    /** Records what {@link DecisionRules#apply} hands to the world, in order. */
    final List<String> carriedOut = new ArrayList<>();
    final DecisionRules.Steps steps = new DecisionRules.Steps() {
        @Override public boolean knows(String id) { return gpus.containsKey(id) || done.contains(id); }
        @Override public void unknown(Decision d) { carriedOut.add("unknown " + d.jobId()); }
        @Override public void refused(Decision d, String why) { carriedOut.add("refused " + d.jobId() + ": " + why); }
        @Override public void start(Decision.Start s) {
            carriedOut.add("start " + s.jobId());
            waiting.remove(s.jobId());
            running.put(s.jobId(), s.gpus());
        }
        @Override public void preempt(Decision.Preempt p) {
            carriedOut.add("preempt " + p.jobId());
            running.remove(p.jobId());
            waiting.add(p.jobId());
        }
        @Override public void migrate(Decision.Migrate m) {
            carriedOut.add("migrate " + m.jobId());
            running.put(m.jobId(), m.gpus());
        }
    };

    @Test
    void aDecisionIsCarriedOutStepByStepEachCheckedAgainstTheWorldTheEarlierStepsLeft() {
        Reservations holds = new Reservations();
        DecisionRules.apply(List.of(
                new Decision.Start("x", List.of(1), ""),
                new Decision.Preempt("r", ""),
                new Decision.Start("r", List.of(1), ""), // waits again after the step before
                new Decision.Start("w", List.of(1), ""), // r is on GPU 1 now: w may join it
                new Decision.Start("d", List.of(0), ""),
                new Decision.Migrate("h", List.of(0, 1), "")), // GPU 1 holds r and w since the steps before: full
                world, holds, 0, steps);
        assertThat(carriedOut).containsExactly("unknown x", "preempt r", "start r", "start w",
                "refused d: job d is done: only a waiting job is started",
                "refused h: GPU 1 already runs 2 jobs");
    }

    @Test
    void whereAJobIsForALaterStepTheRulesKeepThemselvesWhateverTheWorldHasCarriedOutYet() {
        // a world that carries out nothing before the decision ends (as the daemon, whose runs take time to stop), and
        // whose queue rules showed the policy only g: the verdicts are those of a world that moves each job at once
        List<String> handed = new ArrayList<>();
        DecisionRules.Steps later = new DecisionRules.Steps() {
            @Override public boolean knows(String id) { return gpus.containsKey(id); }
            @Override public void unknown(Decision d) { handed.add("unknown " + d.jobId()); }
            @Override public void refused(Decision d, String why) { handed.add("refused " + d.jobId() + ": " + why); }
            @Override public void start(Decision.Start s) { handed.add("start " + s.jobId()); }
            @Override public void preempt(Decision.Preempt p) { handed.add("preempt " + p.jobId()); }
            @Override public void migrate(Decision.Migrate m) { handed.add("migrate " + m.jobId()); }
        };
        List<dev.tandem.core.policy.PendingJob> shown = List.of(new dev.tandem.core.policy.PendingJob(
                new dev.tandem.core.model.Job("g", "u", 0, 2, new dev.tandem.core.model.WorkloadSignature("m", "d", 8, false), 100, 0, 0), 0, 0, 100, 0));
        DecisionRules.apply(List.of(
                new Decision.Start("w", List.of(1), ""), // waiting, but the queue's rules held it back
                new Decision.Preempt("r", ""),
                new Decision.Start("r", List.of(1), ""), // waits again after the step before
                new Decision.Preempt("r", ""), // runs again after the step before
                new Decision.Migrate("h", List.of(1, 2), ""),
                new Decision.Migrate("h", List.of(2, 3), ""), // a moved job still runs
                new Decision.Preempt("h", ""),
                new Decision.Start("h", List.of(1, 2), ""),
                new Decision.Start("h", List.of(2, 3), ""), // started by the step before: not waiting
                new Decision.Reserve("g", List.of(2, 3), 60, "")), shown, world, new Reservations(), 0, later);
        assertThat(handed).containsExactly(
                "refused w: job w is not waiting: only a waiting job is started",
                "preempt r", "start r", "preempt r", "migrate h", "migrate h", "preempt h", "start h",
                "refused h: job h is running: only a waiting job is started");
        assertThat(waiting).as("the world was not moved").containsExactlyInAnyOrder("w", "g");
    }

    @Test
    void theHoldsADecisionNamesReplaceTheLastOnesButForJobsItStarts() {
        Reservations holds = new Reservations();
        Reservations.Changes first = DecisionRules.apply(List.of(new Decision.Reserve("g", List.of(0, 1), 60, "for g")), world, holds, 0, steps);
        assertThat(first.begun()).extracting(Reservations.Hold::jobId).containsExactly("g");
        // the next decision holds GPU 1 for w and then starts w elsewhere: its hold ends with the start; g's is not named again
        Reservations.Changes second = DecisionRules.apply(List.of(
                new Decision.Reserve("w", List.of(1), 30, "for w"),
                new Decision.Reserve("r", List.of(0), 30, "r runs"), // refused: holds are for waiting jobs
                new Decision.Start("w", List.of(0), "")), world, holds, 10, steps);
        assertThat(second.begun()).isEmpty();
        assertThat(second.ended()).extracting(Reservations.Hold::jobId).containsExactly("g");
        assertThat(holds.isEmpty()).isTrue();
        assertThat(carriedOut).containsExactly("refused r: job r is not waiting: GPUs are held only for a job in the queue", "start w");
    }

    @Test
    void aHoldThatItsJobsStartEndsIsOverNotEnded() {
        // a world that tells its users of holds that ended without their job starting (the daemon) tells of none here
        Reservations holds = new Reservations();
        DecisionRules.apply(List.of(new Decision.Reserve("w", List.of(1), 60, "for w")), world, holds, 0, steps);
        Reservations.Changes started = DecisionRules.apply(List.of(new Decision.Start("w", List.of(1), "")), world, holds, 10, steps);
        assertThat(started.ended()).isEmpty();
        assertThat(holds.isEmpty()).isTrue();
    }
}
