package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.policy.Decision;
import org.junit.jupiter.api.Test;

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
}
