package dev.tandem.cli;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.plan.ConfigurationLp;
import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.data.DataSource;
import dev.tandem.sim.trace.AlibabaNodeReader;
import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.engine.Recording;
import dev.tandem.sim.report.JobsCsv;
import dev.tandem.sim.workload.WorkloadCsv;
import dev.tandem.sim.report.Comparison;
import dev.tandem.sim.report.HtmlReport;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.sim.scenario.ScenarioSpec;
import dev.tandem.sim.workload.WorkloadSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** {@code tandem simulate}: run several policies on one generated workload and compare them. */
@Command(name = "simulate", mixinStandardHelpOptions = true, footer = {"", "Example: tandem simulate --jobs 200 --sizes 1 --report out/report.html"}, sortOptions = false,
        description = {"Simulate policies on one workload and compare makespan, JCT, GPU use and OOM crashes.",
                "Jobs are drawn from profiles (or read from a trace), co-located speeds come from measured ground truth, and the",
                "LP makespan lower bound is computed beside them."})
final class SimulateCommand implements Callable<Integer> {
    @Option(names = "--policy", split = ",", defaultValue = "fifo,fifo-packed,lucid,gandiva,tandem",
            description = "Policies to compare, comma-separated (see 'tandem policies'). Default: ${DEFAULT-VALUE}.")
    List<String> policies;

    @Option(names = "--jobs", defaultValue = "200", description = "Number of jobs. Default: ${DEFAULT-VALUE}.")
    int jobs;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed for the workload. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--arrival", defaultValue = "batch", description = "batch (all at t=0) or poisson:RATE (jobs per hour). Default: ${DEFAULT-VALUE}.")
    String arrival;

    @Option(names = "--cluster", defaultValue = "1x8:RTX3090-24GB", converter = ClusterConverter.class,
            description = "NODESxGPUS:TYPE-MEM (e.g. 4x8:V100-16GB; join with +) or a YAML cluster file. Default: ${DEFAULT-VALUE}.")
    Cluster cluster;

    @Option(names = "--nodes", description = "Cluster from an Alibaba node list (openb_node_list_*.csv) instead of --cluster.")
    String nodes;

    @picocli.CommandLine.Mixin ScenarioOptions scenario;

    @Option(names = "--no-bound", description = "Skip the LP lower bound.")
    boolean noBound;

    @Option(names = "--output-json", description = "Write the results as JSON to this file.")
    Path outputJson;

    @Option(names = "--report", description = "Write a self-contained HTML report to this file (SVG figures, incl. a per-GPU timeline and predicted vs true speeds).")
    Path report;

    @Option(names = "--show-decisions", defaultValue = "0", description = "Print the first N decisions (with reasons) of each policy.")
    int showDecisions;

    @Option(names = "--export-workload", paramLabel = "FILE", description = "Write the simulated jobs as a CSV that --workload replays exactly.")
    Path exportWorkload;

    @Option(names = "--jobs-csv", paramLabel = "FILE",
            description = "Write per-job results of every policy (submit, start, end, wait, JCT, slowdown vs solo, shared seconds, partners, time on an equal share, finish-time fairness) as CSV.")
    Path jobsCsv;

    @Spec CommandSpec command;

    @Option(names = "--progress", negatable = true, description = "Show a progress bar on stderr (default: when stderr is a terminal).")
    Boolean progress;

    @Override public Integer call() throws Exception {
        boolean solvesLps = !noBound; // the bound does, and tandem's plan
        for (String p : policies) solvesLps |= PolicyCatalog.create(p) instanceof TandemPolicy; // also fails fast on unknown names
        if (solvesLps) ConfigurationLp.prepareInBackground(); // while the data loads
        if (nodes != null) cluster = AlibabaNodeReader.read(DataSource.of(nodes));
        ScenarioSpec spec = scenario.spec(cluster, jobs, arrival, seed);
        WorkloadSpec workload = spec.workload();
        Scenario loaded = Scenario.load(spec);
        PrintStream out = System.out;
        String source = spec.trace() != null ? "trace " + spec.trace().format() + ":" + spec.trace().source()
                : workload.arrival() + " arrival, sizes " + workload.sizes();
        out.printf(Locale.ROOT, "workload: %d jobs, %s, %s on %s (%s); truth %s; oracle %s; job lengths known: %s%s%n", loaded.jobs().size(),
                source, loaded.mode(), cluster, cluster.gpu(0).type().name(), loaded.truth().name(), loaded.newOracle().name(), spec.sim().knowledge(),
                (spec.sim().queueRules().fairShare() ? "; queue: " + spec.sim().queueRules() : "")
                        + (spec.cluster().gangsSpanNodes() ? "" : "; each job's GPUs on one node"));
        // --bad-rows skip: say what was left out, not only in the JSON
        Map<String, Object> described = loaded.describe();
        if (described.get("trace_rows_skipped_bad") instanceof Integer skipped && skipped > 0) {
            command.commandLine().getErr().printf(Locale.ROOT, "tandem: skipped %d bad trace row(s) (--bad-rows skip), first: %s%n", skipped,
                    ((List<?>) described.get("trace_first_problems")).get(0));
        }

        boolean showProgress = progress != null ? progress : System.console() != null;
        List<SimulationResult> results = runAll(loaded, showProgress);
        Comparison cmp = new Comparison(described, loaded.configuration(), noBound ? null : loaded.lowerBound(), results);
        out.print(cmp.table());
        if (showDecisions > 0) {
            for (SimulationResult r : results) {
                out.println("decisions of " + r.policy() + (r.decisionsTotal() > showDecisions ? " (first " + showDecisions + " of " + r.decisionsTotal() + ")" : "") + ":");
                r.decisions().stream().limit(showDecisions).forEach(d -> out.println("  " + d));
            }
        }
        if (exportWorkload != null) OutputFiles.write(exportWorkload, w -> WorkloadCsv.write(loaded.jobs(), w));
        if (jobsCsv != null) OutputFiles.write(jobsCsv, w -> JobsCsv.write(results, w));
        if (outputJson != null) OutputFiles.write(outputJson, cmp.toJsonString());
        if (report != null) OutputFiles.write(report, HtmlReport.render(cmp));
        return 0;
    }

    /** Runs the policies in parallel (each has its own simulator and oracle), results in the order given. */
    private List<SimulationResult> runAll(Scenario scenario, boolean showProgress) throws Exception {
        int n = policies.size();
        AtomicIntegerArray done = new AtomicIntegerArray(n);
        int total = scenario.jobs().size();
        // a report draws the timeline and the co-located stretches; without one, they are not worth their memory
        Recording recording = report != null ? Recording.forReport(showDecisions)
                : Recording.DEFAULT.withDecisions(Math.max(Recording.DEFAULT.decisions(), showDecisions));
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(n, Math.max(1, Runtime.getRuntime().availableProcessors())));
        try {
            List<Future<SimulationResult>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int k = i;
                futures.add(pool.submit(() -> scenario.run(policies.get(k), (d, t, simTime) -> {
                    done.set(k, d);
                    if (showProgress) drawProgress(done, total);
                }, recording)));
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
