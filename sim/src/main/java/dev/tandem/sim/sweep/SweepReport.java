package dev.tandem.sim.sweep;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tandem.core.compat.Stats;
import dev.tandem.sim.report.HtmlReport;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A sweep's table, JSON and HTML report: makespan and JCT against the Poisson load levels, per cluster, with 95 %
 * intervals; batch arrivals (not a load level) as bars of their own; paired ratios to FIFO; and per load the plane
 * of mean makespan against mean JCT, one point per policy.
 */
public record SweepReport(Map<String, Object> grid, List<Sweep.Point> points) {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public String table() {
        int width = Math.max(12, points.stream().mapToInt(p -> p.policy().length()).max().orElse(0)); // e.g. tandem:makespan
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + width + "s %-22s %-14s %18s %16s %18s %16s %16s%n",
                "policy", "cluster", "load", "makespan_h", "vs_fifo", "avg_jct_h", "jct_vs_fifo", "p99_jct_h"));
        for (Sweep.Point p : points) {
            sb.append(String.format(Locale.ROOT, "%-" + width + "s %-22s %-14s %18s %16s %18s %16s %16s%n", p.policy(), p.cluster(), p.load(),
                    ci(p.makespanS(), 3600), ci(p.speedupVsFifo(), 1), ci(p.avgJctS(), 3600), ci(p.jctSpeedupVsFifo(), 1), ci(p.p99JctS(), 3600)));
        }
        sb.append("(mean ± half-width of the 95% confidence interval over ").append(points.isEmpty() ? 0 : points.get(0).seeds())
                .append(" seeds; vs_fifo and jct_vs_fifo are paired: FIFO's over the policy's on the same seed, then the interval over the seeds)\n");
        return sb.toString();
    }

    private static String ci(Stats.MeanCi v, double scale) {
        if (Double.isNaN(v.mean())) return "-";
        return Double.isNaN(v.halfWidth()) ? String.format(Locale.ROOT, "%.2f", v.mean() / scale)
                : String.format(Locale.ROOT, "%.2f ± %.2f", v.mean() / scale, v.halfWidth() / scale);
    }

    public String toJson() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("grid", grid);
        root.put("points", points);
        try {
            return JSON.writeValueAsString(root);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public String html() {
        return HtmlReport.renderTemplate("/tandem/report/sweep.html", toJson());
    }
}
