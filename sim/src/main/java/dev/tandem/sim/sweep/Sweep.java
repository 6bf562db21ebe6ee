package dev.tandem.sim.sweep;

import dev.tandem.core.compat.Stats;
import dev.tandem.core.model.Cluster;
import dev.tandem.sim.engine.Metrics;
import dev.tandem.sim.engine.ProgressListener;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.sim.scenario.ScenarioSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.IntConsumer;

/**
 * A grid of simulations: policies x clusters x load levels x seeds, run in parallel across cores. Each
 * (cluster, load, seed) workload is loaded once and shared by its policies, so every policy sees the same jobs.
 * Results are aggregated across seeds into means with 95 % confidence intervals (Student's t). Comparisons with FIFO
 * are paired: each seed's ratio (FIFO's over the policy's, on the same jobs) first, then the interval over those
 * ratios, so that how hard one seed's workload is cancels out instead of widening the interval.
 */
public final class Sweep {
    /**
     * One grid point's aggregated result; {@code speedupVsFifo} and {@code jctSpeedupVsFifo} are the paired ratios
     * FIFO's makespan (mean JCT) over the policy's, NaN without FIFO in the grid.
     */
    public record Point(String policy, String cluster, String load, int seeds, Stats.MeanCi makespanS, Stats.MeanCi avgJctS,
                        Stats.MeanCi p99JctS, Stats.MeanCi busy, Stats.MeanCi speedupVsFifo, Stats.MeanCi jctSpeedupVsFifo, double oomEvents) {}

    /** One simulation of the grid: a policy on the workload of (cluster, load, seed). */
    public record Cell(String cluster, String load, long seed, String policy) {}

    /** One workload of the grid, which all its policies share: what one array task of a sweep on Slurm runs. */
    public record Workload(String cluster, String load, long seed) {}

    private Sweep() {}

    /** The grid's workloads in a fixed order (clusters, then loads, then seeds): task i of a Slurm array runs the i-th. */
    public static List<Workload> workloads(List<String> clusters, List<String> loads, List<Long> seeds) {
        List<Workload> out = new ArrayList<>();
        for (String c : clusters) for (String l : loads) for (long s : seeds) out.add(new Workload(c, l, s));
        return out;
    }

    /**
     * @param specFor builds the scenario of one (cluster, load, seed); load is an arrival pattern such as poisson:20
     * @param done    called after each finished simulation (for progress)
     */
    public static List<Point> run(List<String> policies, List<String> clusters, List<String> loads, List<Long> seeds, int threads,
                                  SpecFactory specFor, IntConsumer done) throws Exception {
        Map<Workload, Scenario> scenarios = new LinkedHashMap<>();
        for (Workload w : workloads(clusters, loads, seeds)) scenarios.put(w, Scenario.load(specFor.spec(Cluster.parse(w.cluster()), w.load(), w.seed())));
        List<Cell> cells = new ArrayList<>();
        for (Workload w : scenarios.keySet()) for (String p : policies) cells.add(new Cell(w.cluster(), w.load(), w.seed(), p));
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        Map<Cell, Metrics> results = new LinkedHashMap<>();
        try {
            List<Future<Metrics>> futures = new ArrayList<>();
            for (Cell cell : cells) {
                Scenario sc = scenarios.get(new Workload(cell.cluster(), cell.load(), cell.seed()));
                futures.add(pool.submit(() -> sc.run(cell.policy(), ProgressListener.NONE).metrics()));
            }
            for (int i = 0; i < cells.size(); i++) {
                try {
                    results.put(cells.get(i), futures.get(i).get());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Exception ex) throw ex;
                    throw e;
                }
                done.accept(i + 1);
            }
        } finally {
            pool.shutdownNow();
        }
        return aggregate(policies, clusters, loads, seeds, results);
    }

    /** Runs every policy on one workload, one after the other (an array task of a sweep on Slurm). */
    public static Map<String, Metrics> runWorkload(List<String> policies, Workload w, SpecFactory specFor) {
        Scenario sc = Scenario.load(specFor.spec(Cluster.parse(w.cluster()), w.load(), w.seed()));
        Map<String, Metrics> out = new LinkedHashMap<>();
        for (String p : policies) out.put(p, sc.run(p, ProgressListener.NONE).metrics());
        return out;
    }

    /** Means with 95% confidence intervals across seeds, per (cluster, load, policy), from every cell's result. */
    public static List<Point> aggregate(List<String> policies, List<String> clusters, List<String> loads, List<Long> seeds, Map<Cell, Metrics> results) {
        List<Point> points = new ArrayList<>();
        for (String c : clusters) for (String l : loads) for (String p : policies) {
            BiFunction<String, java.util.function.ToDoubleFunction<Metrics>, Stats.MeanCi> agg = (pol, f) -> {
                double[] v = seeds.stream().mapToDouble(s -> f.applyAsDouble(results.get(new Cell(c, l, s, pol)))).toArray();
                return Stats.meanCi95(v);
            };
            BiFunction<String, java.util.function.ToDoubleFunction<Metrics>, Stats.MeanCi> pairedVsFifo = (pol, f) -> {
                double[] ratios = seeds.stream().mapToDouble(s -> {
                    Metrics fifo = results.get(new Cell(c, l, s, "fifo"));
                    return fifo == null ? Double.NaN : f.applyAsDouble(fifo) / f.applyAsDouble(results.get(new Cell(c, l, s, pol)));
                }).toArray();
                return Stats.meanCi95(ratios);
            };
            points.add(new Point(p, c, l, seeds.size(), agg.apply(p, Metrics::makespan_s), agg.apply(p, Metrics::avg_jct_s),
                    agg.apply(p, Metrics::p99_jct_s), agg.apply(p, Metrics::gpu_busy_fraction), pairedVsFifo.apply(p, Metrics::makespan_s),
                    pairedVsFifo.apply(p, Metrics::avg_jct_s), agg.apply(p, m -> m.oom_events()).mean()));
        }
        return points;
    }

    /** Builds the scenario for one grid point. */
    @FunctionalInterface
    public interface SpecFactory {
        ScenarioSpec spec(Cluster cluster, String load, long seed);
    }
}
