package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.sched.SchedulerConfig;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real PyTorch training jobs from tandem's workload suite ({@code workloads/train.py}: real forward, backward and
 * optimiser steps on synthetic data, on the CPU here) through the whole live daemon: submitted over the API,
 * profiled alone, paired by the policy, progress parsed from their {@code tandem:progress} lines, speeds measured,
 * finished. The GPU is the recorded-output double (this machine has none); the training is not a mock. Runs where
 * Debian's python3-torch is installed ({@code .ci/run} installs it).
 */
@EnabledIf("torchInstalled")
class WorkloadSuiteTest {
    private static final Path SUITE = Path.of("..", "workloads", "train.py").toAbsolutePath().normalize();
    private static final Duration LONG = Duration.ofSeconds(150);

    @TempDir Path dir;
    TandemServer server;

    /** Debian's interpreter, where apt puts python3-torch (a python3 earlier on PATH may be another one). */
    public static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    public static boolean torchInstalled() {
        try {
            Process p = new ProcessBuilder(python(), "-c", "import torch").redirectErrorStream(true).start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.exists(SUITE);
        } catch (Exception e) {
            return false;
        }
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    @Test
    void suiteJobsRunProfiledPairedAndFinishedByTheLiveDaemon() throws Exception {
        // two GPUs; profiling long enough (5 s) to see progress lines after Python has imported PyTorch
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2", false, false);
        ServerConfig quick = host.config(dir.resolve("state"), "tandem", Sharing.TIME_SLICING);
        server = TandemServer.start(new ServerConfig(quick.stateDir(), quick.host(), quick.port(), quick.store(), quick.policy(), quick.sharing(),
                quick.mpsThreadPercentage(), new SchedulerConfig(100, 500, 5000, 1000, 3, 512).withKnownProfiles("none"), quick.stopGraceMs(), quick.maxBodyBytes(),
                quick.stopJobsOnShutdown(), quick.tools()));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();

        // workloads of the suite, each named by the Lucid profile of its kind; the two new workloads are profiled
        // alone on the two GPUs, then the second ResNet-18 (a profiled workload by then) may join one of them
        record Kind(String model, Map<String, Object> signature) {}
        Kind resnet = new Kind("resnet18", Map.of("model", "ResNet18", "dataset", "CIFAR-10", "batch_size", 64, "amp", false));
        Kind dcgan = new Kind("dcgan", Map.of("model", "DCGAN", "dataset", "LSUN", "batch_size", 64, "amp", false));
        List<Kind> kinds = List.of(resnet, dcgan, resnet);
        Map<Long, String> models = new java.util.LinkedHashMap<>();
        for (Kind k : kinds) {
            List<String> argv = List.of(python(), SUITE.toString(), "--model", k.model(), "--batch-size", "4", "--threads", "1",
                    "--iterations", "100000", "--seconds", "14");
            long id = api.submit(admin, TestApi.json(Map.of("argv", argv, "workdir", dir.toString(), "signature", k.signature(),
                    "memory_mib", 2048, "iterations", 100000)));
            models.put(id, k.model());
        }

        Map<Long, Double> bestProgress = new HashMap<>(), bestSpeed = new HashMap<>();
        TestApi.await(LONG, "every suite job to finish", () -> {
            boolean done = true;
            for (long id : models.keySet()) {
                JsonNode j = api.job(admin, id);
                if (j.hasNonNull("progress_iter")) bestProgress.merge(id, j.get("progress_iter").asDouble(), Math::max);
                if (j.hasNonNull("iterations_per_second")) bestSpeed.merge(id, j.get("iterations_per_second").asDouble(), Math::max);
                done &= j.get("state").asText().equals("succeeded") || j.get("state").asText().equals("failed");
            }
            return done;
        });

        List<String> paired = new ArrayList<>();
        StringBuilder history = new StringBuilder();
        for (long id : models.keySet()) {
            JsonNode j = api.job(admin, id);
            String log = api.get("/jobs/" + id + "/logs", admin).json().get("data").asText();
            assertThat(j.get("state").asText()).as(models.get(id) + ": " + log).isEqualTo("succeeded");
            assertThat(log).as(models.get(id)).contains("train.py: " + models.get(id)).contains("tandem:progress iter=").contains("train.py: done");
            assertThat(bestProgress.getOrDefault(id, 0.0)).as("progress parsed for " + models.get(id)).isPositive();
            assertThat(bestSpeed.getOrDefault(id, 0.0)).as("speed measured for " + models.get(id)).isPositive();
            for (JsonNode e : j.get("events")) {
                if (e.get("to").asText().equals("paired")) paired.add(models.get(id));
                history.append(models.get(id)).append(": ").append(e.get("to").asText()).append(" (").append(e.get("reason").asText()).append(")\n");
            }
        }
        assertThat(paired).as("the policy paired suite jobs on the GPU; history:\n" + history).isNotEmpty();
        JsonNode profiles = api.get("/profiles", admin).json().get("profiles");
        assertThat(profiles).as("each new workload was profiled alone first").hasSize(2);
        for (JsonNode p : profiles) assertThat(p.get("solo_speed").asDouble()).as(p.get("signature").asText()).isPositive();
    }
}
