package dev.tandem.sim.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.sim.bound.MakespanLowerBound;
import dev.tandem.sim.engine.CoRun;
import dev.tandem.sim.engine.GpuSpan;
import dev.tandem.sim.engine.JobRecord;
import dev.tandem.sim.engine.Metrics;
import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.engine.TimeSeries;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The results of several policies on one workload, with the lower bound: rendered as the stable JSON output,
 * as a text table, and as the data behind the HTML report.
 */
public record Comparison(Map<String, Object> workload, Map<String, Object> configuration, MakespanLowerBound.Bound bound,
                         List<SimulationResult> results) {
    /** Without a configuration block (tests that build results by hand). */
    public Comparison(Map<String, Object> workload, MakespanLowerBound.Bound bound, List<SimulationResult> results) {
        this(workload, Map.of(), bound, results);
    }

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public Optional<SimulationResult> baseline() {
        return results.stream().filter(r -> r.policy().equals("fifo")).findFirst();
    }

    /** FIFO's makespan over this policy's (above 1 = shorter than FIFO), NaN without a FIFO run. */
    public double speedupVsFifo(SimulationResult r) {
        return baseline().map(b -> b.metrics().makespan_s() / r.metrics().makespan_s()).orElse(Double.NaN);
    }

    public double vsLowerBound(SimulationResult r) {
        return bound == null || !(bound.makespanS() > 0) ? Double.NaN : r.metrics().makespan_s() / bound.makespanS();
    }

    public ObjectNode toJson() {
        ObjectNode root = JSON.createObjectNode();
        root.set("tandem", JSON.valueToTree(BuildInfo.describe()));
        if (!configuration.isEmpty()) root.set("configuration", JSON.valueToTree(configuration));
        root.set("workload", JSON.valueToTree(workload));
        if (bound != null) {
            root.put("lower_bound_makespan_s", bound.makespanS());
            root.set("lower_bound", JSON.valueToTree(bound));
        }
        ArrayNode arr = root.putArray("results");
        for (SimulationResult r : results) {
            ObjectNode o = JSON.valueToTree(r.metrics());
            ObjectNode withPolicy = JSON.createObjectNode().put("policy", r.policy());
            withPolicy.setAll(o);
            putFinite(withPolicy, "makespan_speedup_vs_fifo", speedupVsFifo(r));
            putFinite(withPolicy, "makespan_vs_lower_bound", vsLowerBound(r));
            withPolicy.set("decisions_sample", JSON.valueToTree(r.decisions().subList(0, Math.min(40, r.decisions().size()))));
            arr.add(withPolicy);
        }
        return root;
    }

    private static void putFinite(ObjectNode o, String k, double v) {
        if (Double.isFinite(v)) o.put(k, v);
        else o.putNull(k);
    }

    public String toJsonString() {
        try {
            return JSON.writeValueAsString(toJson());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The table printed on stdout. */
    public String table() {
        StringBuilder sb = new StringBuilder();
        int width = Math.max(12, results.stream().mapToInt(r -> r.policy().length()).max().orElse(0)); // e.g. tandem:makespan
        sb.append(String.format(Locale.ROOT, "%-" + width + "s %11s %9s %10s %10s %10s %11s %6s %7s %5s %9s %8s%n", "policy", "makespan_h", "vs_fifo",
                "vs_bound", "avg_jct_h", "p99_jct_h", "max_wait_h", "busy", "shared", "oom", "preempt", "wall_s"));
        for (SimulationResult r : results) {
            Metrics m = r.metrics();
            double vsFifo = speedupVsFifo(r);
            sb.append(String.format(Locale.ROOT, "%-" + width + "s %11.2f %9s %10s %10.2f %10.2f %11.2f %6.2f %7.2f %5d %9d %8.2f%n", r.policy(),
                    m.makespan_s() / 3600, Double.isFinite(vsFifo) ? String.format(Locale.ROOT, "%.2fx", vsFifo) : "-", Double.isFinite(vsLowerBound(r)) ? String.format(Locale.ROOT, "%.3f", vsLowerBound(r)) : "-",
                    m.avg_jct_s() / 3600, m.p99_jct_s() / 3600, m.max_wait_s() / 3600, m.gpu_busy_fraction(), m.gpu_shared_fraction(), m.oom_events(),
                    m.preemptions(), m.wall_seconds()));
        }
        if (results.stream().anyMatch(r -> r.metrics().unmeasured_shared_fraction() > 0)) {
            sb.append("co-located GPU time on pairs nobody measured (speeds from the fallback model):");
            for (SimulationResult r : results) {
                if (r.metrics().gpu_shared_fraction() > 0) sb.append(String.format(Locale.ROOT, " %s %.0f%%", r.policy(), 100 * r.metrics().unmeasured_shared_fraction()));
            }
            sb.append(System.lineSeparator());
        }
        if (results.stream().anyMatch(r -> r.metrics().lengths_distrusted_at_s() != null)) {
            sb.append("declared lengths judged too far off to rank by (errors over a third of their spread; tandem then ranks by attained service) from:");
            for (SimulationResult r : results) {
                Double at = r.metrics().lengths_distrusted_at_s();
                if (at != null) sb.append(String.format(Locale.ROOT, " %s %.1f h", r.policy(), at / 3600));
            }
            sb.append(System.lineSeparator());
        }
        if (bound != null) {
            sb.append(String.format(Locale.ROOT, "lower bound (LP over solo and paired configurations): %.2f h (LP %.2f h, longest job %.2f h, %d configurations)%n",
                    bound.makespanS() / 3600, bound.lpMakespanS() / 3600, bound.longestJobS() / 3600, bound.configurations()));
        }
        return sb.toString();
    }

    /** Bars of a policy's per-GPU timeline drawn at most; beyond them the chart ends and its title says where. */
    static final int MAX_TIMELINE_SPANS = 6000;

    /**
     * Chart data for the report, per policy: JCT, slowdown and finish-time fairness CDFs, the sampled time series,
     * the per-GPU timeline and the co-located stretches (predicted against true speed), each with its full size
     * beside what is drawn, so that a cut is always named.
     */
    ObjectNode chartData(int maxPoints) {
        return chartData(maxPoints, MAX_TIMELINE_SPANS);
    }

    ObjectNode chartData(int maxPoints, int maxSpans) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode pols = root.putArray("policies");
        for (SimulationResult r : results) {
            ObjectNode p = pols.addObject();
            p.put("policy", r.policy());
            p.set("metrics", JSON.valueToTree(r.metrics()));
            putFinite(p, "vs_fifo", speedupVsFifo(r));
            putFinite(p, "vs_bound", vsLowerBound(r));
            cdf(p.putArray("jct_cdf"), r.jobs().stream().mapToDouble(j -> j.jct() / 3600).sorted().toArray(), maxPoints);
            cdf(p.putArray("slowdown_cdf"), r.jobs().stream().mapToDouble(JobRecord::slowdown).sorted().toArray(), maxPoints);
            cdf(p.putArray("ftf_cdf"), r.jobs().stream().mapToDouble(JobRecord::finishTimeFairness).sorted().toArray(), maxPoints);
            timeline(p, r.timeline(), maxSpans);
            coRuns(p, r.coRuns(), maxPoints * 4);
            TimeSeries ts = r.series();
            ArrayNode busy = p.putArray("busy"), shared = p.putArray("shared"), queue = p.putArray("queue");
            for (int i : ts.sample(maxPoints)) {
                double h = round(ts.time(i) / 3600);
                busy.addArray().add(h).add(ts.busy(i));
                shared.addArray().add(h).add(ts.shared(i));
                queue.addArray().add(h).add(ts.queue(i));
            }
            p.set("decisions", JSON.valueToTree(r.decisions().subList(0, Math.min(25, r.decisions().size()))));
        }
        root.set("workload", JSON.valueToTree(workload));
        if (bound != null) root.put("lower_bound_h", bound.makespanS() / 3600);
        root.put("timeline_gpus", results.stream().flatMap(r -> r.timeline().stream()).mapToInt(GpuSpan::gpu).max().orElse(-1) + 1);
        root.put("cluster_gpus", ((Number) workload.getOrDefault("gpus", 0)).intValue());
        return root;
    }

    /** A CDF of sorted values: at most about {@code maxPoints} points, the last one always kept. */
    private static void cdf(ArrayNode out, double[] sorted, int maxPoints) {
        int step = Math.max(1, sorted.length / maxPoints);
        for (int i = 0; i < sorted.length; i += step) out.addArray().add(round(sorted[i])).add(round((i + 1.0) / sorted.length));
        if (sorted.length > 0) out.addArray().add(round(sorted[sorted.length - 1])).add(1.0);
    }

    /** The first {@code max} bars by start time: [gpu, lane, start h, end h, job, partner or null]. */
    private static void timeline(ObjectNode p, List<GpuSpan> spans, int max) {
        List<GpuSpan> drawn = spans.stream().sorted(java.util.Comparator.comparingDouble(GpuSpan::start)).limit(max).toList();
        ArrayNode out = p.putArray("timeline");
        for (GpuSpan s : drawn) out.addArray().add(s.gpu()).add(s.lane()).add(round(s.start() / 3600)).add(round(s.end() / 3600)).add(s.job()).add(s.partner());
        p.put("timeline_spans", spans.size());
        // where the drawn part ends: every bar starting before this time is drawn
        if (drawn.size() < spans.size()) p.put("timeline_until_h", round(drawn.get(drawn.size() - 1).start() / 3600));
    }

    /**
     * Co-located stretches, at most {@code max} spread evenly over the run: [predicted, true, measured, job, partner,
     * hours]; with the count and the oracle's mean absolute error weighted by each stretch's length, over all of them.
     */
    private static void coRuns(ObjectNode p, List<CoRun> runs, int max) {
        ArrayNode out = p.putArray("co_runs");
        int step = Math.max(1, (runs.size() + max - 1) / max);
        for (int i = 0; i < runs.size(); i += step) {
            CoRun c = runs.get(i);
            if (Double.isNaN(c.predictedSpeed())) continue;
            out.addArray().add(round(c.predictedSpeed())).add(round(c.trueSpeed())).add(c.measured()).add(c.job()).add(c.partner()).add(round(c.seconds() / 3600));
        }
        p.put("co_run_count", runs.size());
        double err = 0, seconds = 0;
        int unpredicted = 0;
        for (CoRun c : runs) {
            if (Double.isNaN(c.predictedSpeed())) {
                unpredicted++;
                continue;
            }
            err += Math.abs(c.predictedSpeed() - c.trueSpeed()) * c.seconds();
            seconds += c.seconds();
        }
        p.put("co_run_unpredicted", unpredicted);
        putFinite(p, "co_run_mae", seconds > 0 ? err / seconds : Double.NaN);
    }

    private static double round(double v) {
        return Math.round(v * 10000) / 10000.0;
    }
}
