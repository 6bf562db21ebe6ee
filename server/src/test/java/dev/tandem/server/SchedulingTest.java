package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The live scheduler on one (fake) GPU: pairing by the policy, out-of-memory recovery, crash retries, cancel, MPS. */
class SchedulingTest {
    private static final Map<String, Object> RESNET = Map.of("model", "ResNet18", "dataset", "CIFAR-10", "batch_size", 64, "amp", false);
    private static final Duration LONG = Duration.ofSeconds(40);

    @TempDir Path dir;
    FakeGpuHost host;
    TandemServer server;
    TestApi api;
    String admin;

    void start(Sharing sharing, boolean mps) throws Exception {
        start("tandem", sharing, mps);
    }

    void start(String policy, Sharing sharing, boolean mps) throws Exception {
        host = FakeGpuHost.install(dir.resolve("host"), "h100x1", false, mps);
        server = TandemServer.start(host.config(dir.resolve("state"), policy, sharing));
        api = new TestApi(server.url());
        admin = Files.readString(server.adminTokenFile()).strip();
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    long submit(List<String> args, Map<String, Object> signature, long memoryMiB) {
        return submit(args, signature, memoryMiB, 1);
    }

    long submit(List<String> args, Map<String, Object> signature, long memoryMiB, long iterations) {
        List<String> argv = new ArrayList<>(List.of(host.trainScript()));
        argv.addAll(args);
        return api.submit(admin, TestApi.json(Map.of("argv", argv, "workdir", dir.toString(), "signature", signature, "memory_mib", memoryMiB,
                "iterations", iterations)));
    }

    List<String> states(long id) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : api.job(admin, id).get("events")) out.add(e.get("to").asText());
        return out;
    }

    @Test
    void aJobWhoseFirstProgressLineComesAfterTheProfileTimeIsProfiledWithItsSpeed() throws Exception {
        // profile time 1 s; the job reports its first iteration after 2 s (a slow start, as importing PyTorch on a
        // loaded machine): profiling goes on until its progress shows (up to 3 s), so the profile has its solo speed
        // (it was stored without one, and WorkloadSuiteTest once failed on it)
        start(Sharing.TIME_SLICING, false);
        long id = submit(List.of("60", "0.05", "--start-delay", "2"), RESNET, 4096, 60);
        TestApi.await(LONG, "the workload to be profiled", () -> !api.get("/profiles", admin).json().get("profiles").isEmpty());
        JsonNode profile = api.get("/profiles", admin).json().get("profiles").get(0);
        assertThat(profile.get("solo_speed").isNull()).as("profile " + profile + ", history " + states(id)).isFalse();
        // 20 it/s nominal; measured over the first progress lines, which the daemon timestamps when it reads them (every
        // 100 ms tick), so coarse: 29.7 it/s seen once
        assertThat(profile.get("solo_speed").asDouble()).isBetween(5.0, 60.0);
    }

    @Test
    void twoCompatibleJobsShareTheGpuThePolicyPairedThem() throws Exception {
        start(Sharing.TIME_SLICING, false);
        long a = submit(List.of("70", "0.1"), RESNET, 4096);
        long b = submit(List.of("40", "0.1"), RESNET, 4096);
        TestApi.await(LONG, "job " + b + " to pair with " + a, () -> api.state(admin, b).equals("paired"));

        api.awaitPartner(admin, b, a, LONG);
        JsonNode jb = api.job(admin, b);
        assertThat(jb.get("predicted_speed").asDouble()).isBetween(0.6, 1.2);
        assertThat(jb.get("prediction_basis").asText()).isEqualTo("knn");
        assertThat(api.job(admin, b).get("events").get(1).get("reason").asText()).startsWith("paired " + b + " with " + a);
        assertThat(api.state(admin, a)).isEqualTo("paired");
        JsonNode gpu = api.get("/gpus", admin).json().get("gpus").get(0);
        assertThat(gpu.get("shared").asBoolean()).isTrue();
        assertThat(gpu.get("jobs")).extracting(JsonNode::asLong).containsExactlyInAnyOrder(a, b);

        // the CPU stand-in does not slow down when paired: measured speeds near solo, fed back to the oracle
        TestApi.await(LONG, "observed speeds", () -> !api.job(admin, b).get("observed_speed").isNull());
        assertThat(api.job(admin, b).get("observed_speed").asDouble()).isBetween(0.6, 1.5);
        TestApi.await(LONG, "both to succeed", () -> api.state(admin, a).equals("succeeded") && api.state(admin, b).equals("succeeded"));
        assertThat(states(a)).containsExactly("pending", "profiling", "running", "paired", "running", "succeeded");
        String metrics = api.get("/metrics", null).body();
        assertThat(metrics).contains("tandem_colocation_speed_observed_count 2").contains("tandem_colocation_speed_predicted_count 2");
        assertThat(server.store().observations()).hasSize(1);

        // accounting: each lists the other as a partner, with its wait, run time, GPU-hours and measured speed
        JsonNode history = api.get("/history", admin).json().get("jobs");
        assertThat(history).extracting(j -> j.get("id").asLong()).containsExactlyInAnyOrder(a, b);
        for (JsonNode j : history) {
            long other = j.get("id").asLong() == a ? b : a;
            assertThat(j.get("shared_with")).extracting(JsonNode::asLong).containsExactly(other);
            assertThat(j.get("speed_vs_solo").asDouble()).isBetween(0.6, 1.5);
            assertThat(j.get("wait_s").asDouble()).isBetween(0.0, 30.0);
            assertThat(j.get("run_s").asDouble()).isPositive();
            assertThat(j.get("gpu_hours").asDouble()).isCloseTo(j.get("run_s").asDouble() / 3600, org.assertj.core.data.Offset.offset(1e-3));
        }
    }

    @Test
    void outOfMemoryNextToAPartnerSplitsThePairAndRestartsTheJobAlone() throws Exception {
        start(Sharing.TIME_SLICING, false);
        long a = submit(List.of("60", "0.1"), RESNET, 4096);
        long b = submit(List.of("20", "0.05", "--oom-on-attempt", "1"), RESNET, 4096);
        TestApi.await(LONG, "job " + b + " to crash and be requeued", () -> api.job(admin, b).get("exclusive").asBoolean());

        JsonNode jb = api.job(admin, b);
        assertThat(jb.get("events").get(2).get("reason").asText()).contains("CUDA out of memory next to job " + a).contains("run alone");
        assertThat(api.state(admin, a)).isIn("running", "succeeded");
        WorkloadSignature sig = new WorkloadSignature("ResNet18", "CIFAR-10", 64, false);
        assertThat(server.store().oomPairs()).contains(sig.label() + "|" + sig.label());
        assertThat(server.store().memoryEstimates().get(sig)).isEqualTo(81559 - 4096 + 1);
        if (api.state(admin, b).equals("pending")) assertThat(api.job(admin, b).get("reason").asText()).contains("runs alone after an out-of-memory crash");

        TestApi.await(LONG, "job " + b + " to succeed alone", () -> api.state(admin, b).equals("succeeded"));
        assertThat(states(b)).containsExactly("pending", "paired", "pending", "running", "succeeded");
        assertThat(api.job(admin, b).get("attempts").asInt()).isEqualTo(2);
        assertThat(states(a)).containsSubsequence("paired", "running").doesNotContain("failed");
        assertThat(api.get("/metrics", null).body()).contains("tandem_oom_crashes_total 1.0");
    }

    @Test
    void memoryUsedAtTheLimitRightBeforeACrashCountsAsOutOfMemory() throws Exception {
        start(Sharing.TIME_SLICING, false);
        long a = submit(List.of("60", "0.1"), RESNET, 4096);
        long b = submit(List.of("400", "0.05", "--crash-at", "40"), RESNET, 4096);
        TestApi.await(LONG, "job " + b + " to pair", () -> api.state(admin, b).equals("paired"));
        host.overrideSamples("0, 100, 95, 81200\n"); // the GPU is full: what nvidia-smi shows before an allocation fails
        TestApi.await(LONG, "job " + b + " to be requeued alone", () -> api.job(admin, b).get("exclusive").asBoolean());
        assertThat(api.job(admin, b).get("events").get(2).get("reason").asText()).contains("CUDA out of memory next to job " + a);
        assertThat(api.state(admin, a)).isIn("running", "succeeded");
    }

    @Test
    void aCrashingJobIsRetriedUpToTheLimitThenFailedWithTheReason() throws Exception {
        start(Sharing.TIME_SLICING, false);
        long crash = submit(List.of("1", "0", "--exit", "3"), RESNET, 0);
        TestApi.await(LONG, "job to fail", () -> api.state(admin, crash).equals("failed"));
        JsonNode j = api.job(admin, crash);
        assertThat(j.get("attempts").asInt()).isEqualTo(3);
        assertThat(j.get("exit_code").asInt()).isEqualTo(3);
        assertThat(j.get("reason").asText()).contains("exited with code 3").contains("failed after 3 attempt(s)");
        assertThat(states(crash)).filteredOn(s -> s.equals("pending")).hasSize(3);

        long missing = api.submit(admin, TestApi.json(Map.of("argv", List.of("/nonexistent/trainer", "--epochs", "1"), "workdir", dir.toString())));
        TestApi.await(LONG, "job to fail", () -> api.state(admin, missing).equals("failed"));
        assertThat(api.job(admin, missing).get("reason").asText()).contains("code 127 (command not found)");
    }

    @Test
    void cancelStopsARunningJobAndDropsAPendingOne() throws Exception {
        start(Sharing.TIME_SLICING, false);
        long running = submit(List.of("1000", "0.1"), RESNET, 0);
        TestApi.await(LONG, "job to start", () -> !api.job(admin, running).get("pid").isNull());
        long pid = api.job(admin, running).get("pid").asLong();
        long waiting = submit(List.of("5", "0.1"), Map.of("model", "Other"), 0);

        TestApi.Response r = api.post("/jobs/" + waiting + "/cancel", admin, "");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("state").asText()).isEqualTo("cancelled");
        assertThat(api.post("/jobs/" + running + "/cancel", admin, "").json().get("state").asText()).isEqualTo("cancelled");
        TestApi.await(LONG, "the process to end", () -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        TestApi.await(LONG, "its output to be complete", () -> api.get("/jobs/" + running + "/logs", admin).json().get("complete").asBoolean());

        assertThat(api.job(admin, waiting).get("attempts").asInt()).isZero();
        assertThat(states(waiting)).containsExactly("pending", "cancelled");
        // the cancellation is the admin's (the scheduler may note the ended process after it)
        JsonNode events = api.job(admin, running).get("events");
        List<String> cancelledBy = new java.util.ArrayList<>();
        events.forEach(e -> { if (e.get("to").asText().equals("cancelled") && !e.get("from").isNull() && !e.get("from").asText().equals("cancelled")) cancelledBy.add(e.get("actor").asText()); });
        assertThat(cancelledBy).as(events.toString()).containsExactly("admin");
        TestApi.Response again = api.post("/jobs/" + running + "/cancel", admin, "");
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("error").asText()).contains("already cancelled");
    }

    @Test
    void aPreemptivePolicySuspendsARunningJobAndResumesItLater() throws Exception {
        start("srtf", Sharing.TIME_SLICING, false);
        long longJob = submit(List.of("400", "0.05"), RESNET, 0, 400);
        TestApi.await(LONG, "the long job to be profiled", () -> api.state(admin, longJob).equals("running"));
        long shortJob = submit(List.of("4", "0.05"), RESNET, 0, 4);
        TestApi.await(LONG, "the short job to succeed", () -> api.state(admin, shortJob).equals("succeeded"));
        TestApi.await(LONG, "the long job to run again", () -> api.job(admin, longJob).get("attempts").asInt() == 2);
        assertThat(states(longJob)).containsSubsequence("running", "suspended", "running");
        JsonNode suspended = api.job(admin, longJob).get("events").get(3);
        assertThat(suspended.get("to").asText()).isEqualTo("suspended");
        assertThat(suspended.get("reason").asText()).startsWith("preempted: srtf: outranked by a queued job");
        assertThat(api.job(admin, shortJob).get("attempts").asInt()).isEqualTo(1);
    }

    @Test
    void mpsSharingStartsTheControlDaemonAndLimitsEachClient() throws Exception {
        start(Sharing.MPS, true);
        long id = submit(List.of("2", "0", "--env"), RESNET, 4096);
        TestApi.await(LONG, "job to succeed", () -> api.state(admin, id).equals("succeeded"));
        String log = api.get("/jobs/" + id + "/logs", admin).json().get("data").asText();
        assertThat(log).contains("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100").contains("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=4608MB")
                .contains("CUDA_MPS_PIPE_DIRECTORY=" + dir.resolve("state/mps/pipe"));
        assertThat(api.get("/gpus", admin).json().get("sharing").asText()).isEqualTo("mps");
        server.close();
        server = null;
        assertThat(Files.readString(host.mpsCalls())).contains("args=-d").contains("stdin=quit");
    }
}
