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
@Command(name = "sweep", mixinStandardHelpOptions = true, footer = {"", "Example: tandem sweep --policy fifo,tandem --loads poisson:2,batch --seeds 3"}, sortOptions = false,
        description = {"Run a grid of simulations (policies x clusters x load levels x seeds) in parallel across cores",
                "and report means with 95% confidence intervals across seeds; the HTML report plots makespan and JCT against load."})
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

    @Override public Integer call() throws Exception {
        for (String p : policies) PolicyCatalog.create(p);
        if (seeds < 1) throw new IllegalArgumentException("--seeds must be at least 1");
        if (scenario.trace != null) throw new IllegalArgumentException("sweep generates its workloads; --trace is for 'tandem simulate'");
        List<Long> seedList = new ArrayList<>();
        for (long s = 1; s <= seeds; s++) seedList.add(s);
        int total = policies.size() * clusters.size() * loads.size() * seeds;
        int cores = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        System.out.printf(Locale.ROOT, "sweep: %d simulations (%d policies x %d clusters x %d loads x %d seeds) on %d threads%n",
                total, policies.size(), clusters.size(), loads.size(), seeds, cores);
        boolean tty = System.console() != null;
        List<Sweep.Point> points = Sweep.run(policies, clusters, loads, seedList, cores,
                (cluster, load, seed) -> scenario.spec(cluster, jobs, load, seed),
                done -> { if (tty) System.err.printf(Locale.ROOT, "\r%d/%d simulations done", done, total); });
        if (tty) System.err.print("\r" + " ".repeat(40) + "\r");
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
