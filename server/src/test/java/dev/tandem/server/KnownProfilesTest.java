package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sharing starts at once for a workload whose profile is known in advance (serve --known-profiles, the bundled data
 * by default): no profiling run alone first; its solo speed is measured here the first time it runs alone long enough.
 */
class KnownProfilesTest {
    private static final Duration LONG = Duration.ofSeconds(40);
    private static final Map<String, Object> RESNET = Map.of("model", "ResNet18", "dataset", "CIFAR-10", "batch_size", 64, "amp", false);

    @TempDir Path dir;

    private static List<String> history(TestApi api, String token, long id, String field) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : api.job(token, id).get("events")) out.add(e.get(field).asText());
        return out;
    }

    @Test
    void aKnownWorkloadSharesAtOnceAndIsMeasuredWhenAlone() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        ServerConfig base = host.config(dir.resolve("state"));
        ServerConfig cfg = new ServerConfig(base.stateDir(), base.host(), base.port(), base.store(), base.policy(), base.sharing(),
                base.mpsThreadPercentage(), base.scheduler().withKnownProfiles("bundled"), base.stopGraceMs(), base.maxBodyBytes(),
                base.stopJobsOnShutdown(), base.tools());
        try (TandemServer server = TandemServer.start(cfg)) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            long a = api.submit(admin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "80", "0.1"), "workdir", dir.toString(),
                    "signature", RESNET, "memory_mib", 4096, "iterations", 80)));
            long b = api.submit(admin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "20", "0.1"), "workdir", dir.toString(),
                    "signature", RESNET, "memory_mib", 4096, "iterations", 20)));
            // the bundled profile (Lucid, RTX 3090) is known: no job runs alone to be profiled, the second joins the first at once
            TestApi.await(LONG, "the two to pair", () -> api.state(admin, b).equals("paired"));
            assertThat(history(api, admin, a, "to")).doesNotContain("profiling");
            assertThat(history(api, admin, b, "to")).containsExactly("pending", "paired");
            assertThat(api.get("/profiles", admin).json().get("profiles")).as("nothing measured here yet").isEmpty();

            // alone again once the short one is done: its solo speed is measured here, without stopping it
            TestApi.await(LONG, "the short job to succeed", () -> api.state(admin, b).equals("succeeded"));
            TestApi.await(LONG, "a measured profile", () -> !api.get("/profiles", admin).json().get("profiles").isEmpty());
            JsonNode p = api.get("/profiles", admin).json().get("profiles").get(0);
            assertThat(p.get("signature").asText()).isEqualTo("ResNet18/CIFAR-10/bs64");
            assertThat(p.get("solo_speed").asDouble()).as("iterations/s of the fake job, not the RTX 3090's 3712").isBetween(5.0, 12.0);
            assertThat(p.get("source_job").asLong()).isEqualTo(a);
            assertThat(history(api, admin, a, "reason")).anyMatch(r -> r.startsWith("measured alone: profiled ResNet18/CIFAR-10/bs64"));
            TestApi.await(LONG, "the long job to succeed", () -> api.state(admin, a).equals("succeeded"));
        }
    }

    @Test
    void aJobShorterThanTheProfileTimeIsProfiledFromWhatItRanAndTheNextOneSharesAtOnce() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        ServerConfig base = host.config(dir.resolve("state"));
        ServerConfig cfg = new ServerConfig(base.stateDir(), base.host(), base.port(), base.store(), base.policy(), base.sharing(),
                base.mpsThreadPercentage(), new dev.tandem.server.sched.SchedulerConfig(100, 500, 10_000, 1000, 3, 512).withKnownProfiles("none"),
                base.stopGraceMs(), base.maxBodyBytes(), base.stopJobsOnShutdown(), base.tools());
        Map<String, Object> mine = Map.of("model", "MyNet", "dataset", "Private", "batch_size", 16, "amp", false);
        try (TandemServer server = TandemServer.start(cfg)) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            long shortJob = api.submit(admin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "25", "0.1"), "workdir", dir.toString(),
                    "signature", mine, "memory_mib", 4096, "iterations", 25)));
            TestApi.await(LONG, "the short job to succeed", () -> api.state(admin, shortJob).equals("succeeded"));
            assertThat(history(api, admin, shortJob, "to")).contains("profiling");
            JsonNode p = api.get("/profiles", admin).json().get("profiles").get(0);
            assertThat(p.get("signature").asText()).isEqualTo("MyNet/Private/bs16");
            assertThat(p.get("samples").asInt()).as("2.5 s of readings at 200 ms, well short of the 10 s profile time").isBetween(5, 20);
            assertThat(p.get("solo_speed").asDouble()).isBetween(5.0, 12.0);
            long next = api.submit(admin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "25", "0.1"), "workdir", dir.toString(),
                    "signature", mine, "memory_mib", 4096, "iterations", 25)));
            TestApi.await(LONG, "the next one to succeed", () -> api.state(admin, next).equals("succeeded"));
            assertThat(history(api, admin, next, "to")).as("its workload is known now").doesNotContain("profiling");
        }
    }

    @Test
    void aBadProfilesFileStopsTheStartWithFileLineAndFieldAndCreatesNothing() throws Exception {
        Path bad = dir.resolve("profiles.csv");
        Files.writeString(bad, "model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem\nResNet18,CIFAR-10,64,0,fast,80,40,2600\n");
        StringWriter err = new StringWriter();
        int code;
        try (PrintWriter w = new PrintWriter(err, true)) {
            code = ServerMain.serveOrExplain(picocli.CommandLine.populateCommand(new ServerMain(), "--executor", "simulated", "--port", "0",
                    "--state-dir", dir.resolve("state").toString(), "--known-profiles", bad.toString()).options, w);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString().lines().toList()).hasSize(1);
        assertThat(err.toString()).startsWith("tandem: error: --known-profiles: " + bad + ":2").contains("speed");
        assertThat(dir.resolve("state")).doesNotExist();
    }
}
