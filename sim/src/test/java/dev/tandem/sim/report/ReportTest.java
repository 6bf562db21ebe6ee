package dev.tandem.sim.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.sim.engine.ProgressListener;
import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.sim.scenario.ScenarioFixtures;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReportTest {
    @Test
    void jsonKeepsTheDocumentedFieldsAndHtmlIsSelfContained() throws Exception {
        Scenario s = ScenarioFixtures.lucid(30, "batch", 2);
        List<SimulationResult> rs = List.of(s.run("fifo", ProgressListener.NONE), s.run("tandem", ProgressListener.NONE));
        Comparison c = new Comparison(s.describe(), s.lowerBound(), rs);
        JsonNode root = new ObjectMapper().readTree(c.toJsonString());
        assertThat(root.get("workload").get("jobs").asInt()).isEqualTo(30);
        assertThat(root.get("lower_bound_makespan_s").asDouble()).isPositive();
        JsonNode fifo = root.get("results").get(0);
        assertThat(fifo.get("policy").asText()).isEqualTo("fifo");
        for (String f : List.of("makespan_s", "avg_jct_s", "p50_jct_s", "p99_jct_s", "avg_queue_s", "max_wait_s", "gpu_busy_fraction", "oom_events", "reservations", "jobs_completed")) {
            assertThat(fifo.has(f)).as(f).isTrue();
        }
        assertThat(fifo.get("makespan_speedup_vs_fifo").asDouble()).isEqualTo(1.0);
        // FIFO never suspends a job, so its longest wait is the largest of the jobs' queue times
        assertThat(fifo.get("max_wait_s").asDouble()).isPositive()
                .isEqualTo(rs.get(0).jobs().stream().mapToDouble(j -> j.queueSeconds()).max().orElseThrow());
        assertThat(root.get("results").get(1).get("makespan_speedup_vs_fifo").asDouble()).isEqualTo(c.speedupVsFifo(rs.get(1)));

        String html = HtmlReport.render(c);
        assertThat(html).contains("echarts").contains("\"policy\":\"tandem\"").contains("JCT CDF").contains("Queue length over time")
                .contains("Makespan vs average JCT");
        assertThat(html).doesNotContain("<script src=").doesNotContain("/*DATA*/");
        assertThat(html.length()).isGreaterThan(1_000_000); // the library itself is inlined
        assertThat(c.table()).contains("tandem").contains("lower bound").contains("max_wait_h");
    }

    @Test
    void chartDataNamesEveryCutItMakes() {
        Scenario s = ScenarioFixtures.lucid(60, "batch", 3);
        SimulationResult tandem = s.run("tandem", ProgressListener.NONE, dev.tandem.sim.engine.Recording.forReport(0));
        Comparison c = new Comparison(s.describe(), null, List.of(tandem));
        JsonNode all = c.chartData(600, 100_000).get("policies").get(0);
        assertThat(all.get("timeline")).hasSize(tandem.timeline().size());
        assertThat(all.has("timeline_until_h")).isFalse();
        assertThat(all.get("co_run_count").asInt()).isEqualTo(tandem.coRuns().size()).isPositive();
        assertThat(all.get("co_runs")).hasSize(tandem.coRuns().size()); // the knn oracle predicts every pair
        assertThat(all.get("co_run_mae").asDouble()).isBetween(0.0, 0.3);
        assertThat(all.get("slowdown_cdf").get(all.get("slowdown_cdf").size() - 1).get(1).asDouble()).isEqualTo(1.0);
        assertThat(all.get("ftf_cdf").get(0).get(0).asDouble()).isPositive();

        JsonNode cut = c.chartData(600, 10).get("policies").get(0);
        assertThat(cut.get("timeline")).hasSize(10);
        assertThat(cut.get("timeline_spans").asInt()).isEqualTo(tandem.timeline().size());
        double until = cut.get("timeline_until_h").asDouble();
        // every bar that starts before the named time is drawn
        long before = tandem.timeline().stream().filter(g -> g.start() / 3600 < until - 1e-4).count();
        assertThat(before).isLessThanOrEqualTo(10);
        JsonNode root = c.chartData(600, 10);
        assertThat(root.get("timeline_gpus").asInt()).isEqualTo(8);
        assertThat(root.get("cluster_gpus").asInt()).isEqualTo(8);
    }
}
