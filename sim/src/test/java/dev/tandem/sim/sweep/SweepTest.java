package dev.tandem.sim.sweep;

import dev.tandem.core.compat.Stats;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.data.DataSource;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.scenario.ScenarioSpec;
import dev.tandem.sim.workload.WorkloadSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SweepTest {
    @Test
    void runsTheWholeGridAndAggregatesOverSeeds() throws Exception {
        AtomicInteger done = new AtomicInteger();
        List<Sweep.Point> points = Sweep.run(List.of("fifo", "tandem"), List.of("1x4:RTX3090-24GB"), List.of("poisson:2", "batch"), List.of(1L, 2L, 3L), 2,
                (cluster, load, seed) -> new ScenarioSpec(DataSource.LUCID_PROFILES.name(), DataSource.LUCID_PAIRS.name(), DataSource.LUCID_PAIRS.name(),
                        "v100", "auto", true, cluster, WorkloadSpec.of(30, load, "1", 1800, 36000, seed), SimConfig.defaults(), TandemPolicy.Config.defaults()),
                n -> done.incrementAndGet());
        assertThat(done.get()).isEqualTo(12);
        assertThat(points).hasSize(4);
        Sweep.Point fifoBatch = points.stream().filter(p -> p.policy().equals("fifo") && p.load().equals("batch")).findFirst().orElseThrow();
        assertThat(fifoBatch.speedupVsFifo().mean()).isEqualTo(1.0);
        assertThat(fifoBatch.makespanS().halfWidth()).isPositive();
        Sweep.Point tandemBatch = points.stream().filter(p -> p.policy().equals("tandem") && p.load().equals("batch")).findFirst().orElseThrow();
        assertThat(tandemBatch.speedupVsFifo().mean()).isGreaterThan(1.0);
        SweepReport r = new SweepReport(Map.of("policies", List.of("fifo", "tandem"), "clusters", List.of("1x4:RTX3090-24GB"),
                "loads", List.of("poisson:2", "batch"), "seeds", List.of(1, 2, 3), "jobs", 30), points);
        assertThat(r.table()).contains("tandem").contains("±");
        assertThat(r.html()).contains("echarts").contains("\"policy\" : \"tandem\"").contains("makespan vs average JCT").doesNotContain("/*DATA*/");
    }

    @Test
    void confidenceIntervalUsesStudentsT() {
        Stats.MeanCi ci = Stats.meanCi95(new double[] {1, 2, 3});
        assertThat(ci.mean()).isEqualTo(2.0);
        assertThat(ci.halfWidth()).isCloseTo(4.303 * 1.0 / Math.sqrt(3), within(1e-9)); // sd = 1
        assertThat(Stats.meanCi95(new double[] {5}).halfWidth()).isNaN();
    }
}
