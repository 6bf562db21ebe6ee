package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.exec.Containment;
import dev.tandem.server.exec.RunCgroups;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Limits a job asks for on each run, enforced by the run's cgroups: real processes go over a host memory limit (the
 * kernel kills them) and a process limit (forks fail), and the job's history says so. A daemon that cannot enforce a
 * limit refuses the submission naming the field; malformed limits are refused naming theirs.
 */
class RunLimitsTest {
    static final Duration LONG = Duration.ofSeconds(90);
    @TempDir Path dir;

    @Test
    void aRunOverItsHostMemoryOrProcessLimitIsStoppedByTheKernelAndTheHistorySaysSo() throws Exception {
        try {
            RunCgroups c = RunCgroups.open(dir.resolve("probe"));
            c.close();
            Assumptions.assumeTrue(c.cannotEnforce(new dev.tandem.server.store.RunLimits(64L, 8)).isEmpty(), "no memory/pids controller here");
        } catch (RunCgroups.Unavailable e) {
            Assumptions.abort("no cgroups here: " + e.getMessage());
        }
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "needs python3");
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        try (TandemServer server = TandemServer.start(host.config(dir.resolve("state"), "fifo", Sharing.TIME_SLICING).withContainment(Containment.CGROUP))) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            long hog = api.submit(admin, TestApi.json(Map.of("argv", List.of("/usr/bin/python3", "-c", "b = b'x' * (512 << 20); print('allocated', len(b))"),
                    "workdir", dir.toString(), "limits", Map.of("host_memory_mib", 64))));
            TestApi.await(LONG, "the memory hog to fail", () -> api.state(admin, hog).equals("failed"));
            JsonNode job = api.job(admin, hog);
            assertThat(job.get("limits").get("host_memory_mib").asLong()).isEqualTo(64);
            assertThat(notes(job)).contains("the kernel killed 1 of its process(es) for going over its host memory limit of 64 MiB")
                    .contains("exited with code 137 (killed by signal 9) over its host memory limit; not run again, as another run would go over it too; failed after 1 attempt(s)");
            assertThat(job.get("attempts").asInt()).as("not retried").isEqualTo(1);
            assertThat(api.get("/jobs/" + hog + "/logs", admin).json().get("data").asText()).doesNotContain("allocated");

            String spawn = "import subprocess\nstarted = 0\nfor i in range(30):\n    try:\n        subprocess.Popen(['sleep', '3']); started += 1\n"
                    + "    except OSError:\n        pass\nprint('started', started)\n";
            long forks = api.submit(admin, TestApi.json(Map.of("argv", List.of("/usr/bin/python3", "-c", spawn), "workdir", dir.toString(),
                    "limits", Map.of("processes", 8))));
            TestApi.await(LONG, "the forking job to succeed", () -> api.state(admin, forks).equals("succeeded"));
            String log = api.get("/jobs/" + forks + "/logs", admin).json().get("data").asText();
            int started = Integer.parseInt(log.lines().filter(l -> l.startsWith("started ")).findFirst().orElseThrow().substring(8).strip());
            assertThat(started).as(log).isLessThan(8);
            assertThat(notes(api.job(admin, forks))).containsPattern("\\d+ fork\\(s\\) refused at its limit of 8 processes");
        }
    }

    @Test
    void aDaemonThatCannotEnforceALimitRefusesItAndMalformedLimitsNameTheirField() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        try (TandemServer server = TandemServer.start(host.config(dir.resolve("state")).withContainment(Containment.SESSION))) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            var r = api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("true"), "workdir", dir.toString(), "limits", Map.of("processes", 10))));
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.json().get("field").asText()).isEqualTo("limits");
            assertThat(r.json().get("error").asText()).contains("tandem serve runs without cgroups here (not asked for (--containment session)), and limits need them");
            for (var bad : List.of(Map.of("limits", "lots"), Map.of("limits", Map.of("memory", 5)), Map.of("limits", Map.of("processes", 0)),
                    Map.of("limits", Map.of("host_memory_mib", "8G")))) {
                var body = new java.util.LinkedHashMap<String, Object>(Map.of("argv", List.of("true"), "workdir", dir.toString()));
                body.putAll(bad);
                var res = api.post("/jobs", admin, TestApi.json(body));
                assertThat(res.status()).as(bad.toString()).isEqualTo(400);
                assertThat(res.json().get("field").asText()).as(bad.toString()).startsWith("limits");
            }
            assertThat(api.get("/jobs", admin).json().get("jobs")).as("nothing stored").isEmpty();
        }
    }

    private static String notes(JsonNode job) {
        StringBuilder b = new StringBuilder();
        for (JsonNode e : job.get("events")) b.append(e.get("reason").asText()).append('\n');
        return b.toString();
    }
}
