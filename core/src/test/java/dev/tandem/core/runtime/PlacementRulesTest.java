package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PlacementRulesTest {
    /** Three nodes of two GPUs (0-1, 2-3, 4-5). */
    private static final Cluster CLUSTER = Cluster.homogeneous(3, 2, new GpuType("T", 16_384), 8, 65_536);
    private Cluster cluster = CLUSTER;

    /** GPUs 0-3: 0 idle, 1 one job, 2 two jobs, 3 a profiling job; 4-5 a 2-GPU gang. */
    private final Map<Integer, List<PlacementRules.Tenant>> world = new HashMap<>(Map.of(
            1, List.of(new PlacementRules.Tenant("a", List.of(1), null)),
            2, List.of(new PlacementRules.Tenant("b", List.of(2), null), new PlacementRules.Tenant("c", List.of(2), null)),
            3, List.of(new PlacementRules.Tenant("p", List.of(3), "job p is being profiled alone")),
            4, List.of(new PlacementRules.Tenant("g", List.of(4, 5), null)),
            5, List.of(new PlacementRules.Tenant("g", List.of(4, 5), null))));

    private String refusal(int jobGpus, List<Integer> gpus, String alone) {
        return PlacementRules.refusal(jobGpus, gpus, cluster, alone, g -> world.getOrDefault(g, List.of())).orElse("ok");
    }

    @Test
    void anUnusableGpuIsRefusedWithItsReasonBeforeAnyOtherRule() {
        java.util.function.IntFunction<String> busy = g -> g == 1 ? "GPU 1 is busy with processes that are not tandem's: pid 42 (python3)" : null;
        assertThat(PlacementRules.refusal(1, List.of(1), cluster, null, g -> world.getOrDefault(g, List.of()), busy))
                .contains("GPU 1 is busy with processes that are not tandem's: pid 42 (python3)");
        assertThat(PlacementRules.refusal(1, List.of(0), cluster, null, g -> world.getOrDefault(g, List.of()), busy)).isEmpty();
    }

    @Test
    void everyRuleWithItsReason() {
        assertThat(refusal(1, List.of(0), null)).isEqualTo("ok");
        assertThat(refusal(1, List.of(1), null)).isEqualTo("ok");
        assertThat(refusal(2, List.of(5, 4), null)).as("a gang joins a gang on the same GPUs, in any order").isEqualTo("ok");
        assertThat(refusal(2, List.of(0), null)).isEqualTo("needs 2 GPU(s), decision gives 1");
        assertThat(refusal(1, List.of(6), null)).isEqualTo("GPU 6 does not exist");
        assertThat(refusal(1, List.of(-1), null)).isEqualTo("GPU -1 does not exist");
        assertThat(refusal(2, List.of(0, 0), null)).isEqualTo("GPU 0 given twice");
        assertThat(refusal(1, List.of(2), null)).isEqualTo("GPU 2 already runs " + PlacementRules.MAX_JOBS_PER_GPU + " jobs");
        assertThat(refusal(1, List.of(1), "runs alone after an out-of-memory crash")).isEqualTo("runs alone after an out-of-memory crash");
        assertThat(refusal(1, List.of(0), "runs alone after an out-of-memory crash")).as("alone on an idle GPU is fine").isEqualTo("ok");
        assertThat(refusal(1, List.of(3), null)).isEqualTo("job p is being profiled alone");
        assertThat(refusal(1, List.of(4), null)).startsWith("a gang shares only with a gang on the same GPUs (job g runs on [4, 5])");
        assertThat(refusal(2, List.of(0, 1), null)).startsWith("a gang shares only with a gang on the same GPUs (job a runs on [1])");
        assertThat(refusal(2, List.of(0, 4), null)).as("as many GPUs, not the same ones")
                .startsWith("a gang shares only with a gang on the same GPUs (job g runs on [4, 5])");
    }

    @Test
    void whereGangsStayOnOneNodeAJobSpanningTwoIsRefused() {
        world.clear();
        assertThat(refusal(2, List.of(0, 2), null)).as("simulated clusters let gangs span nodes").isEqualTo("ok");
        cluster = CLUSTER.withGangsOnOneNode();
        assertThat(cluster.widestJob()).isEqualTo(2);
        assertThat(CLUSTER.widestJob()).isEqualTo(6);
        assertThat(refusal(2, List.of(0, 2), null)).isEqualTo("GPUs [0, 2] lie on nodes node00 and node01; a job runs on one node");
        assertThat(refusal(2, List.of(5, 4), null)).isEqualTo("ok");
        assertThat(refusal(1, List.of(0), null)).isEqualTo("ok");
    }

    @Test
    void theOutOfMemoryLesson() {
        WorkloadSignature a = new WorkloadSignature("A", "d", 32, false), b = new WorkloadSignature("B", "d", 64, true);
        assertThat(OutOfMemoryRule.pairKey(a, b)).isEqualTo("A/d/bs32|B/d/bs64/amp");
        assertThat(OutOfMemoryRule.pairKey(a, b)).isNotEqualTo(OutOfMemoryRule.pairKey(b, a));
        // 24 GiB GPU, partner budgeted 10 GiB: the crashed job needed more than the 14 GiB left
        assertThat(OutOfMemoryRule.raisedEstimateMiB(8000, 10_240, 24_576)).isEqualTo(14_337);
        assertThat(OutOfMemoryRule.raisedEstimateMiB(20_000, 10_240, 24_576)).as("never below what it asked").isEqualTo(20_000);
        assertThat(OutOfMemoryRule.raisedEstimateMiB(100, 0, 24_576)).as("at most a whole GPU").isEqualTo(24_576);
    }
}
