package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.store.Database;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.PostgresScratch;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A job through the whole daemon: submitted over HTTP, profiled alone, run, succeeded, with its output and history. */
class EndToEndTest {
    @TempDir Path dir;
    FakeGpuHost host;
    TandemServer server;
    TestApi api;
    String admin;

    @BeforeEach
    void host() {
        host = FakeGpuHost.install(dir.resolve("host"), "h100x1", true, false);
    }

    void start(ServerConfig cfg) throws Exception {
        server = TandemServer.start(cfg);
        api = new TestApi(server.url());
        admin = Files.readString(server.adminTokenFile()).strip();
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    @Test
    void aJobIsProfiledRunsAndSucceeds() throws Exception {
        start(host.config(dir.resolve("state")));
        runOneJob();
    }

    @Test
    void aSecondDaemonOnTheSameStateDirectoryIsRefused() throws Exception {
        start(host.config(dir.resolve("state")));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TandemServer.start(host.config(dir.resolve("state"))))
                .hasMessageContaining("another tandem serve is using the state directory");
        assertThat(api.get("/gpus", admin).status()).isEqualTo(200);
    }

    /**
     * DCGM that gives its first reading only after the profile time (a loaded host starting dcgmi late once made a CI
     * run's profile lack SM activity): the profile waits for DCGM's readings, up to three profile times, instead of
     * being stored without them for good. Here the first reading comes half a second after the 1 s profile time.
     */
    @Test
    void aProfileWaitsForDcgmThatIsLateToStart() throws Exception {
        Path hold = host.dir().resolve("dcgm-hold");
        Files.writeString(hold, "");
        start(host.config(dir.resolve("state")));
        long id = api.submit(admin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "30", "0.15"), "name", "late-dcgm", "workdir", dir.toString())));
        TestApi.await(Duration.ofSeconds(30), "job " + id + " to be profiled", () -> api.state(admin, id).equals("profiling"));
        Thread.sleep(1500);
        Files.delete(hold);
        TestApi.await(Duration.ofSeconds(30), "job " + id + " to succeed", () -> api.state(admin, id).equals("succeeded"));
        JsonNode p = api.get("/profiles", admin).json().get("profiles").get(0);
        assertThat(p.get("sm_active").isNull()).as("SM activity measured: %s", p).isFalse();
        assertThat(p.get("sm_active").asDouble()).isEqualTo(0.312);
        assertThat(p.get("dram_active").asDouble()).isEqualTo(0.098);
    }

    /** The same on PostgreSQL, when TANDEM_TEST_POSTGRES_URL names a scratch database (emptied first). */
    @Test
    @EnabledIfEnvironmentVariable(named = "TANDEM_TEST_POSTGRES_URL", matches = "postgres.*")
    void theSameOnPostgresql() throws Exception {
        String url = System.getenv("TANDEM_TEST_POSTGRES_URL");
        PostgresScratch.reset(url, dir);
        ServerConfig c = host.config(dir.resolve("state"));
        start(new ServerConfig(c.stateDir(), c.host(), 0, url, c.policy(), c.sharing(), c.mpsThreadPercentage(), c.scheduler(), c.stopGraceMs(),
                c.maxBodyBytes(), c.stopJobsOnShutdown(), c.tools()));
        assertThat(server.store().database().kind()).isEqualTo(Database.Kind.POSTGRESQL);
        runOneJob();
    }

    void runOneJob() throws Exception {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(server.adminTokenFile()))).isEqualTo("rw-------");
        long id = api.submit(admin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "12", "0.15", "--env"), "name", "demo",
                "workdir", dir.toString(), "env", Map.of("MY_SETTING", "x y \"z\""))));
        TestApi.await(Duration.ofSeconds(30), "job " + id + " to succeed", () -> api.state(admin, id).equals("succeeded"));

        JsonNode job = api.job(admin, id);
        assertThat(job.get("exit_code").asInt()).isZero();
        assertThat(job.get("gpu_ids").get(0).asInt()).isZero();
        List<String> path = new ArrayList<>();
        for (JsonNode e : job.get("events")) path.add(e.get("to").asText());
        assertThat(path).containsExactly("pending", "profiling", "running", "succeeded");

        String log = api.get("/jobs/" + id + "/logs", admin).json().get("data").asText();
        assertThat(log).contains("training for 12 iterations").contains("tandem:progress iter=12").contains("done")
                .contains("CUDA_VISIBLE_DEVICES=GPU-5b2e8f1a-3c4d-4e6f-8a9b-0c1d2e3f4a5b").contains("TANDEM_JOB_ID=" + id);

        JsonNode profiles = api.get("/profiles", admin).json().get("profiles");
        assertThat(profiles).hasSize(1);
        JsonNode p = profiles.get(0);
        assertThat(p.get("gpu_util").asDouble()).isEqualTo(31.0);
        assertThat(p.get("gmem_util").asDouble()).isEqualTo(12.0);
        assertThat(p.get("gmem_mib").asDouble()).isEqualTo(2048.0);
        assertThat(p.get("sm_active").asDouble()).isEqualTo(0.312);
        assertThat(p.get("dram_active").asDouble()).isEqualTo(0.098);
        assertThat(p.get("solo_speed").asDouble()).isBetween(3.0, 8.0);

        String metrics = api.get("/metrics", null).body();
        assertThat(metrics).contains("tandem_jobs{state=\"succeeded\"} 1.0").contains("tandem_scheduling_latency_seconds_count")
                .contains("tandem_jobs_submitted_total 1.0");
        // every round that decided also recorded its CPU time (one may be between its two records as /metrics reads them),
        // which cannot exceed its wall-clock time on one thread
        double rounds = sample(metrics, "tandem_scheduling_latency_seconds_count");
        assertThat(rounds).isPositive();
        assertThat(sample(metrics, "tandem_scheduling_cpu_seconds_count")).isBetween(rounds - 1, rounds);
        assertThat(sample(metrics, "tandem_scheduling_cpu_seconds_sum")).isPositive().isLessThanOrEqualTo(sample(metrics, "tandem_scheduling_latency_seconds_sum"));
    }

    /** The value of an unlabelled series in Prometheus' text format. */
    private static double sample(String metrics, String name) {
        return metrics.lines().filter(l -> l.startsWith(name + " ")).mapToDouble(l -> Double.parseDouble(l.substring(name.length() + 1))).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in /metrics"));
    }
}
