package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.testing.DaemonProcess;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon killed with kill -9 while 100 submitted jobs run and wait: restarted, it has every job, re-adopts the
 * processes that kept running (same pid), keeps their history, and finishes all of them.
 */
class RestartTest {
    @TempDir Path dir;

    @Test
    void killMinusNineLosesNoJobAndReadoptsRunningProcesses() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        Path log = dir.resolve("daemon.log");
        DaemonProcess first = DaemonProcess.start(host, state, log);
        String token = Files.readString(state.resolve(StateFiles.ADMIN_TOKEN)).strip();
        TestApi api = new TestApi(first.url());
        Set<Long> submitted = new TreeSet<>();
        for (int i = 0; i < 100; i++) {
            // the first jobs run long enough to be running across the kill and the restart (10 s: at 4 s, a loaded
            // machine's restart outlasted them once); the rest are quick
            List<String> argv = i < 4 ? List.of(host.trainScript(), "100", "0.1") : List.of(host.trainScript(), "3", "0.05");
            submitted.add(api.submit(token, TestApi.json(Map.of("argv", argv, "workdir", dir.toString(),
                    "signature", Map.of("model", "ResNet18", "dataset", "CIFAR-10", "batch_size", 64)))));
        }
        assertThat(submitted).hasSize(100);
        Map<Long, Long> running = new HashMap<>();
        TestApi.await(Duration.ofSeconds(60), "two jobs running with a pid", () -> {
            running.clear();
            for (JsonNode j : api.get("/jobs?state=profiling,running,paired", token).json().get("jobs")) {
                if (!j.get("pid").isNull()) running.put(j.get("id").asLong(), j.get("pid").asLong());
            }
            return running.size() >= 2;
        });
        first.kill9();
        for (long pid : running.values()) assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("job process survives").contains(true);

        try (DaemonProcess second = DaemonProcess.start(host, state, log)) {
            TestApi api2 = new TestApi(second.url());
            List<Long> known = new ArrayList<>();
            for (JsonNode j : api2.get("/jobs?limit=10000", token).json().get("jobs")) known.add(j.get("id").asLong());
            assertThat(known).containsExactlyElementsOf(submitted);
            assertThat(second.output()).contains("re-adopted job").contains("admin token file " + state.resolve(StateFiles.ADMIN_TOKEN))
                    .doesNotContain(token);

            TestApi.await(Duration.ofSeconds(120), "all 100 jobs to succeed", () ->
                    api2.get("/jobs?state=succeeded&limit=10000", token).json().get("jobs").size() == 100);
            for (Map.Entry<Long, Long> e : running.entrySet()) {
                JsonNode j = api2.job(token, e.getKey());
                // re-adopted, not restarted: one attempt, and the history spans both daemons
                assertThat(j.get("attempts").asInt()).as("job " + e.getKey()).isEqualTo(1);
                List<String> path = new ArrayList<>();
                for (JsonNode ev : j.get("events")) path.add(ev.get("to").asText());
                assertThat(path.getFirst()).isEqualTo("pending");
                assertThat(path.getLast()).isEqualTo("succeeded");
                assertThat(api2.get("/jobs/" + e.getKey() + "/logs", token).json().get("data").asText()).contains("tandem:progress iter=100").contains("done");
            }
        }
    }
}
