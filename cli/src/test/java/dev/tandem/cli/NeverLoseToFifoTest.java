package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.tandem.cli.CliTest.tandem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * tandem's default policy never loses to FIFO (issue 15): on small cuts of the real traces in the workspace's shared
 * data and on the demo, its makespan is at most FIFO's + 0.5% and its mean JCT at most FIFO's. Skipped where the
 * shared data is not beside the repository. Measured on these cuts (tandem / FIFO, makespan and mean JCT): Alibaba
 * default 0.85 / 0.04, Alibaba gpushare100 1.0045 / 0.09 (1.0056 before the running job that ends last was kept from
 * suspensions), Muri trace1 0.72 / 0.69, Philly 0.61 / 0.02, Gavel ed69ec 1.00 / 0.67, demo 0.50 / 0.53.
 */
class NeverLoseToFifoTest {
    @TempDir Path dir;

    static final Path SHARED = Path.of("../../shared/data");

    @ParameterizedTest
    @ValueSource(strings = {
            "--trace {}/alibaba-openb/openb_pod_list_default.csv --trace-format alibaba --trace-limit 1000 --cluster 2x8:RTX3090-24GB",
            "--trace {}/alibaba-openb/openb_pod_list_gpushare100.csv --trace-format alibaba --trace-limit 1000 --cluster 2x8:RTX3090-24GB",
            "--trace {}/muri/trace1.csv --trace-format muri --trace-limit 500 --cluster 4x8:RTX3090-24GB",
            "--trace {}/philly/philly_jobs.csv --trace-format pollux --trace-limit 1000 --cluster 4x8:V100-32GB",
            "--trace {}/gavel/traces/ed69ec.trace --trace-format gavel --trace-limit 300 --cluster 4x8:V100-16GB --truth bundled:gavel/simulation_throughputs.json",
            "--jobs 200 --sizes 1",
    })
    void tandemIsNeverWorseThanFifo(String scenario) throws Exception {
        List<String> args = new ArrayList<>(List.of("simulate", "--policy", "fifo,tandem", "--no-bound", "--output-json", dir.resolve("r.json").toString()));
        for (String a : scenario.split(" ")) {
            if (a.contains("{}")) {
                Path file = Path.of(a.replace("{}", SHARED.toString()));
                Assumptions.assumeTrue(Files.exists(file), "shared data not available: " + file);
                a = file.toString();
            }
            args.add(a);
        }
        CliTest.Run r = tandem(args.toArray(String[]::new));
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode results = new ObjectMapper().readTree(dir.resolve("r.json").toFile()).get("results");
        JsonNode fifo = results.get(0), tandem = results.get(1);
        assertThat(tandem.get("policy").asText()).isEqualTo("tandem");
        assertThat(tandem.get("makespan_s").asDouble()).as("makespan").isLessThanOrEqualTo(fifo.get("makespan_s").asDouble() * 1.005);
        assertThat(tandem.get("avg_jct_s").asDouble()).as("mean JCT").isLessThanOrEqualTo(fifo.get("avg_jct_s").asDouble());
        assertThat(tandem.get("jobs_completed").asInt()).isEqualTo(fifo.get("jobs_completed").asInt());
    }
}
