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
        for (String f : List.of("makespan_s", "avg_jct_s", "p50_jct_s", "p99_jct_s", "avg_queue_s", "max_wait_s", "gpu_busy_fraction", "oom_events", "jobs_completed")) {
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
}
