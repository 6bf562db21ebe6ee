package dev.tandem.bench;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.data.DataSource;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.engine.Simulator;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.sim.scenario.ScenarioSpec;
import dev.tandem.sim.workload.WorkloadSpec;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;
import java.util.Locale;

/**
 * Whole-run benchmarks, printed as ratios against baselines measured in the same run:
 * <ol>
 *   <li>scale: 10,000 jobs on 512 GPUs and 100,000 jobs on 2,000 GPUs, Philly gang mix, Poisson arrivals, per
 *       policy: wall time, simulated jobs per second, events per second and peak heap;</li>
 *   <li>tandem's event-driven simulator against a naive one-second-tick loop (Lucid's style) on the same
 *       smaller workload and policy: both makespans (they agree to within a tick per job) and the speed-up.</li>
 * </ol>
 * Usage: {@code java -Xmx2g -cp bench/target/tandem-bench.jar dev.tandem.bench.WholeRunBenchmark [policies]}; with
 * {@code POLICIES --million} (and {@code -Xmx8g}) only 1,000,000 jobs on 20,000 GPUs, each policy once, FIFO first.
 */
public final class WholeRunBenchmark {
    public static void main(String[] args) {
        List<String> policies = List.of((args.length > 0 ? args[0] : "fifo,gandiva,tandem").split(","));
        if (args.length > 1 && args[1].equals("--million")) { // the largest scale alone (needs -Xmx8g)
            scaleRun(1_000_000, "2500x8:RTX3090-24GB", "poisson:5000", policies, false);
            return;
        }
        // about 80 % offered load: mean 3.4 GPU-hours per job with the Philly gang mix
        scaleRun(10_000, "64x8:RTX3090-24GB", "poisson:120", policies, true);
        scaleRun(100_000, "250x8:RTX3090-24GB", "poisson:500", List.of("fifo", "tandem"), false);
        tickComparison();
    }

    private static void scaleRun(int jobs, String cluster, String arrival, List<String> policies, boolean warmUp) {
        Scenario big = scenario(jobs, cluster, arrival, "1:0.7,2:0.1,4:0.15,8:0.05");
        System.out.printf(Locale.ROOT, "scale run: %d jobs on %s (%d GPUs), %s arrivals, Philly gang mix%n", jobs, cluster, big.cluster().gpuCount(), arrival);
        System.out.printf(Locale.ROOT, "%-12s %10s %14s %14s %12s %10s %14s%n", "policy", "wall_s", "jobs/s", "events/s", "makespan_h", "vs_fifo", "peak_heap_MiB");
        double fifoMakespan = Double.NaN;
        for (String p : policies) {
            if (warmUp) big.run(p, (d, t, s) -> {}); // JIT warm-up on the same workload
            resetPeakHeap();
            SimulationResult r = big.run(p, (d, t, s) -> {});
            if (p.equals("fifo")) fifoMakespan = r.metrics().makespan_s();
            System.out.printf(Locale.ROOT, "%-12s %10.2f %14.0f %14.0f %12.1f %9.2fx %14d%n", p, r.metrics().wall_seconds(),
                    jobs / r.metrics().wall_seconds(), r.metrics().events() / r.metrics().wall_seconds(), r.metrics().makespan_s() / 3600,
                    fifoMakespan / r.metrics().makespan_s(), peakHeapMiB());
        }
        System.out.println();
    }

    private static void tickComparison() {
        int small = 300;
        Scenario s = scenario(small, "4x8:RTX3090-24GB", "poisson:30", "1");
        System.out.printf(Locale.ROOT, "event-driven vs one-second ticks: %d jobs on 4x8 GPUs, Poisson arrivals, same policy and truth%n", small);
        System.out.printf(Locale.ROOT, "%-12s %14s %14s %14s %14s %10s%n", "policy", "event_wall_s", "tick_wall_s", "event_mkspan_h", "tick_mkspan_h", "speed-up");
        for (String p : List.of("fifo", "tandem")) {
            Simulator sim = new Simulator(SimConfig.defaults().withRound(0).withRestartOverhead(0), s.cluster(), s.profiles(), s.truth());
            sim.run(s.jobs(), PolicyCatalog.create(p), s.newOracle()); // warm-up
            SimulationResult ev = sim.run(s.jobs(), PolicyCatalog.create(p), s.newOracle());
            NaiveTickSimulator.run(s.cluster(), s.profiles(), s.truth(), s.jobs(), PolicyCatalog.create(p), s.newOracle()); // warm-up
            NaiveTickSimulator.Result tick = NaiveTickSimulator.run(s.cluster(), s.profiles(), s.truth(), s.jobs(), PolicyCatalog.create(p), s.newOracle());
            System.out.printf(Locale.ROOT, "%-12s %14.3f %14.3f %14.2f %14.2f %9.0fx%n", p, ev.metrics().wall_seconds(), tick.wallSeconds(),
                    ev.metrics().makespan_s() / 3600, tick.makespan() / 3600, tick.wallSeconds() / ev.metrics().wall_seconds());
        }
    }

    private static void resetPeakHeap() {
        System.gc();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) if (pool.getType() == MemoryType.HEAP) pool.resetPeakUsage();
    }

    private static long peakHeapMiB() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) if (pool.getType() == MemoryType.HEAP) sum += pool.getPeakUsage().getUsed();
        return sum >> 20;
    }

    public static Scenario scenario(int jobs, String cluster, String arrival, String sizes) {
        return Scenario.load(new ScenarioSpec(DataSource.LUCID_PROFILES.name(), DataSource.LUCID_PAIRS.name(), DataSource.LUCID_PAIRS.name(),
                "v100", "auto", true, Cluster.parse(cluster), WorkloadSpec.of(jobs, arrival, sizes, 1800, 57600, 1),
                SimConfig.defaults(), TandemPolicy.Config.defaults()));
    }
}
