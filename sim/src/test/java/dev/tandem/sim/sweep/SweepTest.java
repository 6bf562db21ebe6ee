package dev.tandem.sim.sweep;

import dev.tandem.core.compat.Stats;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.data.DataSource;
import dev.tandem.sim.engine.Metrics;
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
        assertThat(r.html()).contains("echarts").contains("\"policy\" : \"tandem\"").contains("makespan vs average JCT")
                .contains("paired over seeds").contains("save as SVG").doesNotContain("/*DATA*/").doesNotContain("/*FIGURES*/");
        assertThat(r.table()).contains("jct_vs_fifo").contains("paired");
    }

    private static Metrics metrics(double makespan, double jct) {
        return new Metrics(makespan, jct, jct, jct, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, null, null);
    }

    @Test
    void comparisonsWithFifoArePairedBySeed() {
        // seeds of very different difficulty, on which tandem is always exactly 2x shorter and JCT 1.5x shorter than FIFO:
        // the paired ratio is exact (interval 0) though the makespans themselves spread widely
        List<Long> seeds = List.of(1L, 2L, 3L);
        double[] fifoMakespan = {100, 400, 1600};
        Map<Sweep.Cell, Metrics> results = new java.util.HashMap<>();
        for (int i = 0; i < 3; i++) {
            results.put(new Sweep.Cell("c", "batch", seeds.get(i), "fifo"), metrics(fifoMakespan[i], fifoMakespan[i] / 2));
            results.put(new Sweep.Cell("c", "batch", seeds.get(i), "tandem"), metrics(fifoMakespan[i] / 2, fifoMakespan[i] / 3));
        }
        Sweep.Point tandem = Sweep.aggregate(List.of("fifo", "tandem"), List.of("c"), List.of("batch"), seeds, results).get(1);
        assertThat(tandem.policy()).isEqualTo("tandem");
        assertThat(tandem.speedupVsFifo().mean()).isCloseTo(2, within(1e-12));
        assertThat(tandem.speedupVsFifo().halfWidth()).isCloseTo(0, within(1e-12));
        assertThat(tandem.jctSpeedupVsFifo().mean()).isCloseTo(1.5, within(1e-12));
        assertThat(tandem.jctSpeedupVsFifo().halfWidth()).isCloseTo(0, within(1e-12));
        assertThat(tandem.makespanS().halfWidth()).isGreaterThan(500); // unpaired, the seeds' spread dominates
    }

    @Test
    void confidenceIntervalUsesStudentsT() {
        Stats.MeanCi ci = Stats.meanCi95(new double[] {1, 2, 3});
        assertThat(ci.mean()).isEqualTo(2.0);
        assertThat(ci.halfWidth()).isCloseTo(4.302653 * 1.0 / Math.sqrt(3), within(1e-6)); // sd = 1; t(0.975, 2 df)
        assertThat(Stats.meanCi95(new double[] {5}).halfWidth()).isNaN();
        double[] forty = new double[40]; // 0,1,0,1,...: sd = sqrt(40 / 4 / 39)
        for (int i = 0; i < forty.length; i++) forty[i] = i % 2;
        double sd = Math.sqrt(10.0 / 39);
        assertThat(Stats.meanCi95(forty).halfWidth()).isCloseTo(2.022691 * sd / Math.sqrt(40), within(1e-6)); // t(0.975, 39 df), not 1.96
    }
}
