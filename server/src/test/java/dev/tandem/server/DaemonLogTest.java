package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

import static org.assertj.core.api.Assertions.assertThat;

/** The daemon's log: what happened to each job at INFO, with date and time, as text or one JSON object per line. */
class DaemonLogTest {
    @TempDir Path dir;

    long runOneJob(DaemonProcess d, Path state) throws Exception {
        String token = Files.readString(state.resolve(StateFiles.ADMIN_TOKEN)).strip();
        TestApi api = new TestApi(d.url());
        long id = api.submit(token, TestApi.json(Map.of("argv", List.of("true"), "workdir", dir.toString())));
        TestApi.await(Duration.ofSeconds(30), "the job to succeed", () -> api.state(token, id).equals("succeeded"));
        TestApi.await(Duration.ofSeconds(10), "its end in the log", () -> d.output().contains("job " + id + " succeeded"));
        return id;
    }

    @Test
    void jsonLinesSayWhenEachJobStartedAndEnded() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = dir.resolve("state");
        long id;
        String output;
        try (DaemonProcess d = DaemonProcess.start(host, state, dir.resolve("daemon.log"), "--log-format", "json")) {
            id = runOneJob(d, state);
            output = d.output();
        }
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> events = new ArrayList<>();
        for (String line : output.lines().filter(l -> l.startsWith("{")).toList()) events.add(json.readTree(line));
        assertThat(events).isNotEmpty().allMatch(e -> e.has("timestamp") && e.has("level") && e.has("loggerName") && e.has("formattedMessage"));
        assertThat(events).extracting(e -> e.get("formattedMessage").asText())
                .anyMatch(m -> m.startsWith("job " + id + " submitted by admin"))
                .anyMatch(m -> m.startsWith("job " + id + " started on GPU(s) 0 (profiling, attempt 1)"))
                .anyMatch(m -> m.startsWith("job " + id + " succeeded (attempt 1"));
        assertThat(output.lines().filter(l -> !l.startsWith("{"))).as("only the two lines serve prints on stdout are not JSON")
                .allMatch(l -> l.startsWith("tandem serve: "));
    }

    @Test
    void textLinesCarryTheDate() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = dir.resolve("state");
        try (DaemonProcess d = DaemonProcess.start(host, state, dir.resolve("daemon.log"))) {
            long id = runOneJob(d, state);
            assertThat(d.output()).containsPattern("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  d\\.t\\.s\\.s\\.ExitHandler - job "
                    + id + " succeeded");
        }
    }
}
