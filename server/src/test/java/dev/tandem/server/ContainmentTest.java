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
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs are contained: each leads a Unix session of its own, so a Ctrl-C on a foreground daemon leaves them running
 * for the next daemon to re-adopt, and whatever a run leaves behind (in its session, or escaped with setsid) is
 * stopped when its main process ends.
 */
class ContainmentTest {
    static final Duration LONG = Duration.ofSeconds(60);
    @TempDir Path dir;

    @Test
    void processesAJobLeavesBehindAreStoppedWhenItEndsAndNamedInItsHistory() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        try (TandemServer server = TandemServer.start(host.config(dir.resolve("state")))) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            // one child stays in the run's session, one leaves it with setsid; the job itself ends at once
            long id = api.submit(admin, TestApi.json(Map.of("argv", List.of("/bin/bash", "-c",
                    "sleep 301 & setsid sleep 302 & echo started; exit 0"), "workdir", dir.toString())));
            TestApi.await(LONG, "job " + id + " to succeed", () -> api.state(admin, id).equals("succeeded"));
            String note = "";
            for (JsonNode e : api.job(admin, id).get("events")) {
                if (e.get("reason").asText().startsWith("stopped ")) note = e.get("reason").asText();
            }
            assertThat(note).startsWith("stopped 2 process(es) it left running after its main process ended: ")
                    .contains("(sleep)");
            Matcher pids = Pattern.compile("pid (\\d+)").matcher(note);
            List<Long> stopped = new ArrayList<>();
            while (pids.find()) stopped.add(Long.parseLong(pids.group(1)));
            assertThat(stopped).hasSize(2);
            for (long pid : stopped) {
                assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(h -> h.info().command().orElse("").endsWith("sleep")))
                        .as("left-behind pid " + pid).isEmpty();
            }
            assertThat(api.job(admin, id).get("exit_code").asInt()).isZero();
        }
    }

    @Test
    void ctrlCOnTheDaemonLeavesJobsRunningAndTheNextDaemonReadoptsThem() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = dir.resolve("state");
        Path log = dir.resolve("daemon.log");
        DaemonProcess first = DaemonProcess.start(host, state, log);
        String token = Files.readString(state.resolve(StateFiles.ADMIN_TOKEN)).strip();
        TestApi api = new TestApi(first.url());
        long id = api.submit(token, TestApi.json(Map.of("argv", List.of(host.trainScript(), "40", "0.1"), "workdir", dir.toString())));
        long[] pid = new long[1];
        TestApi.await(LONG, "the job to run with a pid", () -> {
            JsonNode j = api.job(token, id);
            if (j.get("pid").isNull()) return false;
            pid[0] = j.get("pid").asLong();
            return true;
        });
        first.interruptGroup();
        assertThat(ProcessHandle.of(pid[0]).map(ProcessHandle::isAlive)).as("the job outlives Ctrl-C on its daemon").contains(true);
        assertThat(first.output()).contains("tandem serve stopped");

        try (DaemonProcess second = DaemonProcess.start(host, state, log)) {
            TestApi api2 = new TestApi(second.url());
            TestApi.await(LONG, "the re-adopted job to succeed", () -> api2.state(token, id).equals("succeeded"));
            assertThat(second.output()).contains("re-adopted job " + id + " (pid " + pid[0] + ")");
            assertThat(api2.job(token, id).get("attempts").asInt()).as("it ran once, not again from scratch").isEqualTo(1);
        }
    }
}
