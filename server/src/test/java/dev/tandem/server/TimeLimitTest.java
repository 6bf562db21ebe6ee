package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A run that outlasts its job's time limit fails the job and is stopped, not retried (Slurm's --time). */
class TimeLimitTest {
    @TempDir Path dir;

    @Test
    void aRunawayJobIsStoppedAtItsTimeLimitAndFailsWithTheReason() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        try (TandemServer server = TandemServer.start(host.config(dir.resolve("state")))) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            long runaway = api.submit(admin, TestApi.json(Map.of("argv", List.of("sleep", "300"), "workdir", dir.toString(), "time_limit", "2s")));
            long quick = api.submit(admin, TestApi.json(Map.of("argv", List.of("true"), "workdir", dir.toString(), "time_limit", "1h")));
            long[] pid = new long[1];
            TestApi.await(Duration.ofSeconds(30), "the runaway job to run", () -> {
                JsonNode j = api.job(admin, runaway);
                if (j.get("pid").isNull()) return false;
                pid[0] = j.get("pid").asLong();
                return true;
            });
            assertThat(api.job(admin, runaway).get("time_limit_s").asDouble()).isEqualTo(2.0);
            TestApi.await(Duration.ofSeconds(30), "the runaway job to fail", () -> api.state(admin, runaway).equals("failed"));
            JsonNode j = api.job(admin, runaway);
            assertThat(j.get("reason").asText()).isEqualTo("time limit of 2s reached; stopped");
            assertThat(j.get("attempts").asInt()).isEqualTo(1);
            TestApi.await(Duration.ofSeconds(30), "its process to be gone", () -> ProcessHandle.of(pid[0]).map(h -> !h.isAlive()).orElse(true));
            TestApi.await(Duration.ofSeconds(30), "the other job to succeed", () -> api.state(admin, quick).equals("succeeded"));
            List<String> states = new ArrayList<>();
            for (JsonNode e : api.job(admin, runaway).get("events")) states.add(e.get("to").asText());
            assertThat(states).endsWith("failed");
            assertThat(states.subList(1, states.size())).as("never requeued").doesNotContain("pending");
        }
    }
}
