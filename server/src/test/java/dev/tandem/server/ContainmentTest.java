package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.testing.DaemonProcess;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import dev.tandem.server.exec.Containment;
import dev.tandem.server.exec.RunCgroups;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
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
 * stopped when its main process ends: found by session and marker, or by the run's cgroup where the daemon can make
 * cgroups (as root on this CI machine, whose cgroup v2 hierarchy is mounted at /sys/fs/cgroup/unified).
 */
class ContainmentTest {
    static final Duration LONG = Duration.ofSeconds(60);
    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(value = Containment.class, names = {"SESSION", "CGROUP"})
    void processesAJobLeavesBehindAreStoppedWhenItEndsAndNamedInItsHistory(Containment containment) throws Exception {
        if (containment == Containment.CGROUP) assumeCgroups();
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        try (TandemServer server = TandemServer.start(host.config(dir.resolve("state")).withContainment(containment))) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            // one child stays in the run's session, one leaves it with setsid; the job itself ends at once
            long id = api.submit(admin, TestApi.json(Map.of("argv", List.of("/bin/bash", "-c",
                    "sleep 301 & setsid sleep 302 & echo started; exit 0"), "workdir", dir.toString())));
            List<Long> stopped = stoppedLeftovers(api, admin, id, 2);
            for (long pid : stopped) assertGone(pid);
            assertThat(api.job(admin, id).get("exit_code").asInt()).isZero();
        }
    }

    /**
     * A process that leaves the run's session and clears its environment escapes a session and its marker, not the
     * run's cgroup; the run's cgroup is gone once the run has ended.
     */
    @Test
    void aProcessThatLeftTheSessionAndClearedItsEnvironmentIsStoppedByTheRunsCgroup() throws Exception {
        assumeCgroups();
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = dir.resolve("state");
        try (TandemServer server = TandemServer.start(host.config(state).withContainment(Containment.CGROUP))) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            long id = api.submit(admin, TestApi.json(Map.of("argv", List.of("/bin/bash", "-c",
                    "setsid env -i /bin/sleep 303 & echo started; exit 0"), "workdir", dir.toString())));
            List<Long> stopped = stoppedLeftovers(api, admin, id, 1);
            assertGone(stopped.getFirst());
            Path cgroup = Path.of(Files.readString(state.resolve("jobs").resolve(String.valueOf(id)).resolve("cgroup-1")).strip().replaceFirst("^main ", ""));
            assertThat(cgroup.getFileName().toString()).isEqualTo("job-" + id + "-1");
            TestApi.await(Duration.ofSeconds(10), "the run's cgroup to be removed", () -> !Files.exists(cgroup));
        }
    }

    private static void assumeCgroups() {
        try {
            RunCgroups.open(Path.of("/tmp/tandem-cgroup-probe")).close();
        } catch (RunCgroups.Unavailable e) {
            Assumptions.abort("no cgroups here: " + e.getMessage());
        }
    }

    /** The pids named in the job's "stopped N process(es)" event, once it has succeeded. */
    private static List<Long> stoppedLeftovers(TestApi api, String admin, long id, int expected) throws Exception {
        TestApi.await(LONG, "job " + id + " to succeed", () -> api.state(admin, id).equals("succeeded"));
        String note = "";
        for (JsonNode e : api.job(admin, id).get("events")) {
            if (e.get("reason").asText().startsWith("stopped ")) note = e.get("reason").asText();
        }
        assertThat(note).startsWith("stopped " + expected + " process(es) it left running after its main process ended: ")
                .contains("(sleep)");
        Matcher pids = Pattern.compile("pid (\\d+)").matcher(note);
        List<Long> stopped = new ArrayList<>();
        while (pids.find()) stopped.add(Long.parseLong(pids.group(1)));
        assertThat(stopped).hasSize(expected);
        return stopped;
    }

    private static void assertGone(long pid) {
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(h -> h.info().command().orElse("").endsWith("sleep")))
                .as("left-behind pid " + pid).isEmpty();
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
