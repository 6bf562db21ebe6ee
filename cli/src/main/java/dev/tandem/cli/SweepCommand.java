package dev.tandem.cli;

import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.sim.sweep.Sweep;
import dev.tandem.sim.sweep.SweepReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tandem sweep}: a grid of simulations with confidence intervals across seeds. */
@Command(name = "sweep", mixinStandardHelpOptions = true, footer = {"", "Example: tandem sweep --policy fifo,tandem --loads poisson:2,batch --seeds 3",
        "On Slurm: tandem sweep --policy fifo,tandem --seeds 20 --executor slurm --partition cpu --work-dir /shared/sweeps/run1"}, sortOptions = false,
        description = {"Run a grid of simulations (policies x clusters x load levels x seeds) and compare the policies across seeds.",
                "Runs in parallel across cores, or as a Slurm job array (--executor slurm); reports means with 95%% confidence",
                "intervals across seeds and ratios to FIFO paired by seed; the HTML report plots makespan and JCT against the",
                "Poisson loads, paired ratios and the trade-off."})
final class SweepCommand implements Callable<Integer> {
    @Option(names = "--policy", split = ",", defaultValue = "fifo,fifo-packed,gandiva,tandem", description = "Policies. Default: ${DEFAULT-VALUE}.")
    List<String> policies;

    @Option(names = "--clusters", split = ",", defaultValue = "1x8:RTX3090-24GB", description = "Cluster specs. Default: ${DEFAULT-VALUE}.")
    List<String> clusters;

    @Option(names = "--loads", split = ",", defaultValue = "poisson:1,poisson:2,poisson:4,batch",
            description = "Arrival patterns, one per load level (poisson:JOBS_PER_HOUR or batch). Default: ${DEFAULT-VALUE}.")
    List<String> loads;

    @Option(names = "--seeds", defaultValue = "5", description = "Seeds 1..N per point. Default: ${DEFAULT-VALUE}.")
    int seeds;

    @Option(names = "--jobs", defaultValue = "100", description = "Jobs per run. Default: ${DEFAULT-VALUE}.")
    int jobs;

    @Option(names = "--threads", description = "Parallel simulations (default: the number of cores).")
    Integer threads;

    @Mixin ScenarioOptions scenario;

    @Option(names = "--output-json", description = "Write the aggregated points as JSON.")
    Path outputJson;

    @Option(names = "--report", description = "Write a self-contained HTML report.")
    Path report;

    @Option(names = "--executor", defaultValue = "local", description = "local (this machine's cores) or slurm (one array task per workload: "
            + "cluster x load x seed, all policies on it). Default: ${DEFAULT-VALUE}.")
    String executor;

    @Option(names = "--partition", description = "Slurm partition of the array (default: Slurm's default partition).")
    String partition;

    @Option(names = "--work-dir", description = "With --executor slurm: where the tasks write their results and logs; must be on a file "
            + "system the nodes share, as must this java and tandem's jar (default: ./tandem-sweep-TIMESTAMP).")
    Path workDir;

    /** Set on the command line of an array task: run one workload and write its result here (not for users). */
    @Option(names = "--array-task-dir", hidden = true)
    Path arrayTaskDir;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override public Integer call() throws Exception {
        for (String p : policies) PolicyCatalog.create(p);
        if (seeds < 1) throw new IllegalArgumentException("--seeds must be at least 1");
        if (threads != null && threads < 1) throw new IllegalArgumentException("--threads must be at least 1, got " + threads);
        if (scenario.trace != null) throw new IllegalArgumentException("sweep generates its workloads; --trace is for 'tandem simulate'");
        List<Long> seedList = new ArrayList<>();
        for (long s = 1; s <= seeds; s++) seedList.add(s);
        Sweep.SpecFactory specs = (cluster, load, seed) -> scenario.spec(cluster, jobs, load, seed);
        // each cluster and load once, before anything runs or is submitted: a bad one is refused here, not by a worker
        for (String c : clusters) for (String load : loads) specs.spec(dev.tandem.core.model.Cluster.parse(c), load, 1);
        if (arrayTaskDir != null) {
            SweepOnSlurm.runTask(arrayTaskDir, policies, Sweep.workloads(clusters, loads, seedList), specs);
            return 0;
        }
        if (!executor.equals("slurm") && (partition != null || workDir != null)) {
            throw new IllegalArgumentException("--partition and --work-dir are for --executor slurm");
        }
        int total = policies.size() * clusters.size() * loads.size() * seeds;
        String size = String.format(Locale.ROOT, "%d simulations (%d policies x %d clusters x %d loads x %d seeds)",
                total, policies.size(), clusters.size(), loads.size(), seeds);
        List<Sweep.Point> points;
        switch (executor) {
            case "local" -> {
                int cores = threads != null ? threads : Runtime.getRuntime().availableProcessors();
                System.out.printf(Locale.ROOT, "sweep: %s on %d threads%n", size, cores);
                boolean tty = System.console() != null;
                points = Sweep.run(policies, clusters, loads, seedList, cores, specs,
                        done -> { if (tty) System.err.printf(Locale.ROOT, "\r%d/%d simulations done", done, total); });
                if (tty) System.err.print("\r" + " ".repeat(40) + "\r");
            }
            case "slurm" -> {
                Path dir = workDir != null ? workDir : Path.of("tandem-sweep-" + java.time.LocalDateTime.now().withNano(0).toString().replace(':', '-'));
                System.out.printf(Locale.ROOT, "sweep: %s as a Slurm array of %d tasks; results in %s%n", size, clusters.size() * loads.size() * seeds,
                        dir.toAbsolutePath());
                Map<Sweep.Cell, dev.tandem.sim.engine.Metrics> results = new SweepOnSlurm(dir, partition)
                        .run(spec.commandLine().getParseResult().originalArgs(), policies, Sweep.workloads(clusters, loads, seedList));
                points = Sweep.aggregate(policies, clusters, loads, seedList, results);
            }
            default -> throw new IllegalArgumentException("--executor: expected local or slurm, got '" + executor + "'");
        }
        Map<String, Object> grid = new LinkedHashMap<>();
        grid.put("policies", policies);
        grid.put("clusters", clusters);
        grid.put("loads", loads);
        grid.put("seeds", seedList);
        grid.put("jobs", jobs);
        grid.put("sizes", scenario.sizes);
        grid.put("truth", scenario.truth);
        SweepReport r = new SweepReport(grid, points);
        System.out.print(r.table());
        if (outputJson != null) OutputFiles.write(outputJson, r.toJson());
        if (report != null) OutputFiles.write(report, r.html());
        return 0;
    }
}
