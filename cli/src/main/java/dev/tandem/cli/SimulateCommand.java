package dev.tandem.cli;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.sim.data.DataSource;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.report.Comparison;
import dev.tandem.sim.report.HtmlReport;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.sim.scenario.ScenarioSpec;
import dev.tandem.sim.workload.WorkloadSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** {@code tandem simulate}: run several policies on one generated workload and compare them. */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simulate policies on one workload drawn from profiles, against measured co-location ground truth,",
                "and compare makespan, JCT, GPU use and OOM crashes; also computes the LP makespan lower bound."})
final class SimulateCommand implements Callable<Integer> {
    @Option(names = "--policy", split = ",", defaultValue = "fifo,fifo-packed,lucid,gandiva,tandem",
            description = "Policies to compare, comma-separated (see 'tandem policies'). Default: ${DEFAULT-VALUE}.")
    List<String> policies;

    @Option(names = "--profiles", defaultValue = DataSource.BUNDLED + "lucid/single_profiles.csv",
            description = "Solo profiles (Lucid single-profile CSV, or JSON). Default: ${DEFAULT-VALUE}.")
    String profiles;

    @Option(names = "--truth", defaultValue = DataSource.BUNDLED + "lucid/colocation_pairs.csv",
            description = {"Ground-truth co-location: Lucid pair CSV, or Gavel throughput JSON (jobs are then drawn from Gavel's job types).",
                    "Default: ${DEFAULT-VALUE}. Bundled Gavel data: " + DataSource.BUNDLED + "gavel/simulation_throughputs.json"})
    String truth;

    @Option(names = "--train", description = "Pairs the policies' compatibility model learns from (Lucid CSV or Gavel JSON). Default: the --truth file.")
    String train;

    @Option(names = "--gavel-gpu", defaultValue = "v100", description = "GPU type to read from a Gavel file (k80, p100, v100). Default: ${DEFAULT-VALUE}.")
    String gavelGpu;

    @Option(names = "--model", defaultValue = "auto", description = "Policies' compatibility oracle: auto, knn, util-sum, measured. Default: ${DEFAULT-VALUE}.")
    String model;

    @Option(names = "--no-online", description = "Do not let the oracle learn from pairs it sees running.")
    boolean noOnline;

    @Option(names = "--jobs", defaultValue = "200", description = "Number of jobs. Default: ${DEFAULT-VALUE}.")
    int jobs;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed for the workload. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--arrival", defaultValue = "batch", description = "batch (all at t=0) or poisson:RATE (jobs per hour). Default: ${DEFAULT-VALUE}.")
    String arrival;

    @Option(names = "--sizes", defaultValue = "1:0.7,2:0.1,4:0.15,8:0.05", description = "Gang-size mix SIZE:WEIGHT,... Default: ${DEFAULT-VALUE} (Philly-like).")
    String sizes;

    @Option(names = "--duration-min", defaultValue = "30m", converter = Durations.class, description = "Shortest solo duration. Default: ${DEFAULT-VALUE}.")
    double durationMin;

    @Option(names = "--duration-max", defaultValue = "16h", converter = Durations.class, description = "Longest solo duration (log-uniform between). Default: ${DEFAULT-VALUE}.")
    double durationMax;

    @Option(names = "--cluster", defaultValue = "1x8:RTX3090-24GB", converter = ClusterConverter.class,
            description = "NODESxGPUS:TYPE-MEM (e.g. 4x8:V100-16GB; join with +) or a YAML cluster file. Default: ${DEFAULT-VALUE}.")
    Cluster cluster;

    @Option(names = "--round", defaultValue = "300s", converter = Durations.class, description = "Scheduling round length besides events (0: events only). Default: ${DEFAULT-VALUE}.")
    double round;

    @Option(names = "--restart-overhead", defaultValue = "30s", converter = Durations.class, description = "Work repeated when a job resumes after suspend or crash. Default: ${DEFAULT-VALUE}.")
    double restartOverhead;

    @Option(names = "--memory-margin", defaultValue = "512", description = "MiB the policies budget per co-located job beyond its profiled peak. Default: ${DEFAULT-VALUE}.")
    long memoryMargin;

    @Option(names = "--tandem-min-speed", defaultValue = "0.6", description = "tandem: no job predicted below this fraction of its solo speed. Default: ${DEFAULT-VALUE}.")
    double minSpeed;

    @Option(names = "--tandem-min-gain", defaultValue = "0.1", description = "tandem: pair only if predicted combined speed >= 1 + this. Default: ${DEFAULT-VALUE}.")
    double minGain;

    @Option(names = "--tandem-caution", defaultValue = "1.0", description = "tandem: standard deviations of prediction uncertainty subtracted before judging. Default: ${DEFAULT-VALUE}.")
    double caution;

    @Option(names = "--tandem-window", defaultValue = "128", description = "tandem: queued jobs considered for pairing per round. Default: ${DEFAULT-VALUE}.")
    int window;

    @Option(names = "--tandem-starvation", defaultValue = "7d", converter = Durations.class, description = "tandem: a job waiting longer is served first. Default: ${DEFAULT-VALUE}.")
    double starvation;

    @Option(names = "--no-bound", description = "Skip the LP lower bound.")
    boolean noBound;

    @Option(names = "--output-json", description = "Write the results as JSON to this file.")
    Path outputJson;

    @Option(names = "--report", description = "Write a self-contained HTML report to this file.")
    Path report;

    @Option(names = "--show-decisions", defaultValue = "0", description = "Print the first N decisions (with reasons) of each policy.")
    int showDecisions;

    @Option(names = "--progress", negatable = true, description = "Show a progress bar on stderr (default: when stderr is a terminal).")
    Boolean progress;

    @Override public Integer call() throws Exception {
        for (String p : policies) PolicyCatalog.create(p); // fail fast on unknown names
        SimConfig sim = SimConfig.defaults().withRound(round).withRestartOverhead(restartOverhead).withMemoryRule(new MemoryRule(memoryMargin));
        WorkloadSpec workload = WorkloadSpec.of(jobs, arrival, sizes, durationMin, durationMax, seed);
        ScenarioSpec spec = new ScenarioSpec(profiles, truth, train == null ? truth : train, gavelGpu, model, !noOnline, cluster, workload, sim,
                new TandemPolicy.Config(minSpeed, minGain, caution, window, starvation));
        Scenario scenario = Scenario.load(spec);
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "workload: %d jobs, %s arrival, sizes %s, %s on %s (%s); truth %s; oracle %s%n", scenario.jobs().size(),
                workload.arrival(), workload.sizes(), scenario.mode(), cluster, cluster.gpu(0).type().name(), scenario.truth().name(), scenario.newOracle().name());

        boolean showProgress = progress != null ? progress : System.console() != null;
        List<SimulationResult> results = runAll(scenario, showProgress);
        Comparison cmp = new Comparison(scenario.describe(), noBound ? null : scenario.lowerBound(), results);
        out.print(cmp.table());
        if (showDecisions > 0) {
            for (SimulationResult r : results) {
                out.println("decisions of " + r.policy() + ":");
                r.decisions().stream().limit(showDecisions).forEach(d -> out.println("  " + d));
            }
        }
        if (outputJson != null) {
            Path parent = outputJson.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Files.writeString(outputJson, cmp.toJsonString(), StandardCharsets.UTF_8);
            out.println("wrote " + outputJson);
        }
        if (report != null) {
            HtmlReport.write(cmp, report);
            out.println("wrote " + report);
        }
        return 0;
    }

    /** Runs the policies in parallel (each has its own simulator and oracle), results in the order given. */
    private List<SimulationResult> runAll(Scenario scenario, boolean showProgress) throws Exception {
        int n = policies.size();
        AtomicIntegerArray done = new AtomicIntegerArray(n);
        int total = scenario.jobs().size();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(n, Math.max(1, Runtime.getRuntime().availableProcessors())));
        try {
            List<Future<SimulationResult>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int k = i;
                futures.add(pool.submit(() -> scenario.run(policies.get(k), (d, t, simTime) -> {
                    done.set(k, d);
                    if (showProgress) drawProgress(done, total);
                })));
            }
            List<SimulationResult> results = new ArrayList<>();
            for (Future<SimulationResult> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Exception ex) throw ex;
                    throw e;
                }
            }
            if (showProgress) System.err.print("\r" + " ".repeat(70) + "\r");
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private synchronized void drawProgress(AtomicIntegerArray done, int total) {
        long sum = 0;
        for (int i = 0; i < done.length(); i++) sum += done.get(i);
        double frac = (double) sum / ((long) total * done.length());
        int width = 40, fill = (int) Math.round(frac * width);
        System.err.printf(Locale.ROOT, "\r[%s%s] %5.1f%% of jobs done across %d policies", "#".repeat(fill), " ".repeat(width - fill), frac * 100, done.length());
    }
}
