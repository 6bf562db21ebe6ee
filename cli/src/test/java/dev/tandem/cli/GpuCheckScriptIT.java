package dev.tandem.cli;

import dev.tandem.server.testing.FakeGpuHost;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * scripts/gpu-check.sh end to end against the packaged tandem.jar, on the CPU: the recorded nvidia-smi double of the
 * fake GPU host stands in for the GPU, the workload suite's real PyTorch jobs train on the CPU (GPU_CHECK_ALLOW_CPU),
 * with a tiny batch and budget. On a GPU machine the same script runs the real nvidia-smi, DCGM and MPS.
 */
class GpuCheckScriptIT {
    @TempDir Path dir;

    @Test
    void theCheckRecordsCalibratesAndRunsTheBatchUnderFifoAndTandem() throws Exception {
        Assumptions.assumeTrue(new ProcessBuilder("/usr/bin/python3", "-c", "import torch").start().waitFor() == 0, "no python3-torch");
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path out = dir.resolve("out");
        ProcessBuilder pb = new ProcessBuilder("bash", Path.of("..", "scripts", "gpu-check.sh").toString(), out.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("check.log").toFile());
        Map<String, String> env = pb.environment();
        env.put("PATH", host.path());
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.putAll(Map.of("GPU_CHECK_PYTHON", "/usr/bin/python3", "GPU_CHECK_ALLOW_CPU", "yes", "GPU_CHECK_WORKLOADS", "resnet18:8,neumf:64",
                "GPU_CHECK_JOBS", "4", "GPU_CHECK_JOB_SECONDS", "4", "GPU_CHECK_CALIBRATE_BUDGET", "60s", "GPU_CHECK_MEASURE", "4s", "GPU_CHECK_MPS", "no"));
        Process p = pb.start();
        boolean done = p.waitFor(8, TimeUnit.MINUTES);
        if (!done) p.destroyForcibly();
        String log = Files.readString(dir.resolve("check.log"), StandardCharsets.UTF_8);
        assertThat(done).as(log).isTrue();
        assertThat(p.exitValue()).as(log).isZero();
        String summary = Files.readString(out.resolve("summary.txt"));
        assertThat(summary).contains("fifo: makespan").contains("tandem: makespan").contains("FIFO/tandem makespan ratio");
        assertThat(summary.lines().filter(l -> l.contains("4 of 4 jobs succeeded")).count()).as(summary).isEqualTo(2);
        assertThat(Files.readString(out.resolve("availability.txt"))).contains("nvidia-smi:").contains("torch:");
        assertThat(Files.readAllLines(out.resolve("calibration/profiles.csv"))).hasSize(3);
        for (String f : new String[] {"nvidia-smi-q.txt", "jobs-fifo.csv", "jobs-tandem.csv", "daemon-fifo.log", "daemon-tandem.log", "calibration/pairs.csv"}) {
            assertThat(out.resolve(f)).as(f).isNotEmptyFile();
        }
        assertThat(Files.readAllLines(out.resolve("jobs-tandem.csv"))).hasSize(5).first().asString().startsWith("id,name,owner,state");
    }
}
