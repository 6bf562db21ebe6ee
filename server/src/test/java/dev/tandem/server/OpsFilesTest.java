package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's files in {@code ops/} fit the daemon: every metric the Grafana dashboard and the alert rules query is
 * one tandem serve exports (scraped from a daemon with a pair of co-located jobs), the exported names pass
 * {@code promtool check metrics}, and the rules pass {@code promtool check rules} and their unit tests. promtool comes
 * from Debian's prometheus package, which {@code .ci/run} installs; without it only the promtool checks are skipped.
 */
class OpsFilesTest {
    private static final Path OPS = Path.of("..", "ops").toAbsolutePath().normalize();
    private static final Pattern METRIC = Pattern.compile("\\b(tandem_[a-z_]+)");
    private static final Map<String, Object> RESNET = Map.of("model", "ResNet18", "dataset", "CIFAR-10", "batch_size", 64, "amp", false);

    @TempDir Path dir;

    @Test
    void theDashboardAndAlertRulesQueryOnlyMetricsTheDaemonExports() throws Exception {
        String scrape = scrapeWithAPairRunning();
        Set<String> exported = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            exported.add(line.split("[{ ]", 2)[0]);
        }
        // what the daemon must export whatever happens: per GPU, per shared GPU, the histograms, decisions by kind
        assertThat(exported).contains("tandem_gpu_utilization_ratio", "tandem_gpu_memory_used_bytes", "tandem_gpu_memory_total_bytes",
                "tandem_gpu_tenants", "tandem_gpu_colocated_throughput_ratio", "tandem_gpu_colocated_slowest_ratio",
                "tandem_job_wait_seconds_bucket", "tandem_job_run_seconds_bucket", "tandem_scheduling_latency_seconds_bucket", "tandem_decisions_total");
        assertThat(scrape).containsPattern("tandem_decisions_total\\{kind=\"start_paired\"[^}]*} 1\\.0")
                .containsPattern("tandem_gpu_tenants\\{gpu=\"0\",node=\"[^\"]+\",uuid=\"GPU-[^\"]+\"[^}]*} 2\\.0");
        // the pair's speeds by GPU: the slowest job's at most half their sum (no bound on the sum: measured speeds are noisy,
        // and each of this pair measured a little above its solo speed in one run)
        Matcher throughput = Pattern.compile("tandem_gpu_colocated_throughput_ratio\\{gpu=\"0\"[^}]*} ([0-9.]+)").matcher(scrape);
        Matcher slowest = Pattern.compile("tandem_gpu_colocated_slowest_ratio\\{gpu=\"0\"[^}]*} ([0-9.]+)").matcher(scrape);
        assertThat(throughput.find() && slowest.find()).as("both series of GPU 0").isTrue();
        assertThat(Double.parseDouble(slowest.group(1))).isPositive().isLessThanOrEqualTo(Double.parseDouble(throughput.group(1)) / 2 + 1e-9);
        // answered without a token: no series may name a job or a user (the API answers another user's job as missing);
        // nor use the label "job", which Prometheus keeps for the scrape target's name
        assertThat(scrape).doesNotContainPattern("[{,](job|user|exported_job)=");

        List<String> queried = new ArrayList<>();
        JsonNode dashboard = new ObjectMapper().readTree(OPS.resolve("grafana/tandem-dashboard.json").toFile());
        assertThat(dashboard.get("panels").size()).isGreaterThanOrEqualTo(10);
        for (JsonNode panel : dashboard.get("panels")) {
            assertThat(panel.get("targets")).as(panel.get("title").asText()).isNotEmpty();
            for (JsonNode t : panel.get("targets")) queried.add(t.get("expr").asText());
        }
        JsonNode rules = new YAMLMapper().readTree(OPS.resolve("prometheus/tandem-alerts.yml").toFile());
        for (JsonNode r : rules.get("groups").get(0).get("rules")) queried.add(r.get("expr").asText());
        Set<String> missing = new TreeSet<>();
        for (String expr : queried) {
            Matcher m = METRIC.matcher(expr);
            while (m.find()) if (!exported.contains(m.group(1))) missing.add(m.group(1) + " (in " + expr + ")");
        }
        assertThat(missing).as("metrics queried but not exported").isEmpty();

        Path promtool = ToolPath.fromEnvironment().find("promtool").orElse(null);
        Assumptions.assumeTrue(promtool != null, "promtool not installed (Debian package prometheus; .ci/run installs it)");
        Path metricsFile = dir.resolve("metrics.txt");
        Files.writeString(metricsFile, scrape);
        assertThat(run(List.of(promtool.toString(), "check", "metrics"), metricsFile)).as("promtool check metrics: naming conventions").isEmpty();
    }

    @Test
    void theAlertRulesAreValidAndTheirUnitTestsPass() throws Exception {
        Path promtool = ToolPath.fromEnvironment().find("promtool").orElse(null);
        Assumptions.assumeTrue(promtool != null, "promtool not installed (Debian package prometheus; .ci/run installs it)");
        Path rules = OPS.resolve("prometheus");
        assertThat(run(List.of(promtool.toString(), "check", "rules", rules.resolve("tandem-alerts.yml").toString()), null)).contains("SUCCESS: 8 rules found");
        assertThat(run(List.of(promtool.toString(), "test", "rules", rules.resolve("tandem-alerts.test.yml").toString()), null)).contains("SUCCESS");
    }

    /** Two compatible jobs paired on one GPU, scraped once both have measured speeds. */
    private String scrapeWithAPairRunning() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        try (TandemServer server = TandemServer.start(host.config(dir.resolve("state")))) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            long a = api.submit(admin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "200", "0.1"), "workdir", dir.toString(),
                    "signature", RESNET, "memory_mib", 4096, "iterations", 200)));
            long b = api.submit(admin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "150", "0.1"), "workdir", dir.toString(),
                    "signature", RESNET, "memory_mib", 4096, "iterations", 150)));
            // the scrape that shows both is the one checked: a second scrape could come after one of them has ended
            java.util.concurrent.atomic.AtomicReference<String> paired = new java.util.concurrent.atomic.AtomicReference<>();
            TestApi.await(Duration.ofSeconds(60), "both to have measured speeds while paired", () -> {
                String body = api.get("/metrics", null).body();
                boolean both = body.lines().anyMatch(l -> l.startsWith("tandem_gpu_colocated_throughput_ratio{"));
                if (both) paired.set(body);
                return both;
            });
            String scrape = paired.get();
            api.post("/jobs/" + a + "/cancel", admin, "{}");
            api.post("/jobs/" + b + "/cancel", admin, "{}");
            return scrape;
        }
    }

    /** Runs a command (stdin from {@code input} if given); returns its output, failing the test on a non-zero exit. */
    private static String run(List<String> cmd, Path input) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(OPS.resolve("prometheus").toFile());
        if (input != null) pb.redirectInput(input.toFile());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", cmd) + ":\n" + out).isZero();
        return out;
    }
}
