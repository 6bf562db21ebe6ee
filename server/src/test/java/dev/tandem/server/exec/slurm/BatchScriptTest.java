package dev.tandem.server.exec.slurm;

import dev.tandem.server.exec.ExecException;
import dev.tandem.server.gpu.GpuReadings;
import dev.tandem.server.gpu.Profiler;
import dev.tandem.server.testing.FakeGpuHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The batch script Slurm runs, run here by bash directly: argv and environment arrive byte for byte, the exit status
 * is recorded, and a profiling run's GPU samplers (the nvidia-smi/dcgmi test doubles) start beside the job and stop
 * with it or with the window.
 */
class BatchScriptTest {
    static final List<String> NASTY = List.of("it's \"quoted\"", "two  spaces", "$(touch pwned)", "a; touch pwned2", "line1\nline2", "", "*", "`id`", "ünïcødé \\ back");

    @TempDir Path dir;

    @Test
    void argvAndEnvironmentPassThroughUntouched() throws Exception {
        Path script = dir.resolve("run.sh");
        try (InputStream in = SlurmExecutor.class.getResourceAsStream("tandem-slurm-run.sh")) {
            Files.write(script, in.readAllBytes());
        }
        Path out = dir.resolve("out");
        // the "job" prints each argument NUL-terminated, then the variable
        List<String> argv = new java.util.ArrayList<>(List.of("/bin/bash", "-c", "printf '%s\\0' \"$@\" > \"$OUT\"; printf '%s' \"$MY_VAR\" >> \"$OUT\"; pwd > \"$OUT.pwd\"; exit 7", "job"));
        argv.addAll(NASTY);
        Path workdir = Files.createDirectories(dir.resolve("work dir; $(x)"));
        Files.write(dir.resolve("workdir-2"), JobFiles.nulSeparated(List.of(workdir.toString())));
        Files.write(dir.resolve("argv-2"), JobFiles.nulSeparated(argv));
        Files.write(dir.resolve("env-2"), JobFiles.nulSeparated(List.of("OUT=" + out, "MY_VAR=x y \"z\" $(no)\n;")));
        Process p = new ProcessBuilder("/bin/bash", script.toString(), dir.toString(), "2").directory(dir.toFile()).inheritIO().start();
        assertThat(p.waitFor()).isEqualTo(7);
        String got = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(got).isEqualTo(String.join("\0", NASTY) + "\0" + "x y \"z\" $(no)\n;");
        assertThat(Files.readString(dir.resolve("exit-2")).strip()).isEqualTo("7");
        assertThat(Files.readString(dir.resolve("out.pwd")).strip()).as("it runs in its working directory").isEqualTo(workdir.toString());
        assertThat(dir.resolve("pwned")).doesNotExist();
        assertThat(dir.resolve("pwned2")).doesNotExist();
    }

    /**
     * A working directory the node does not have: the job does not run (Slurm would have run it in /tmp), the script
     * says why in the job's output and in nodir-ATTEMPT, which the executor reports as a run that did not run, and
     * leaves no exit status of the job's.
     */
    @Test
    void aJobWhoseWorkingDirectoryIsMissingDoesNotRunElsewhere() throws Exception {
        Path script = dir.resolve("run.sh");
        try (InputStream in = SlurmExecutor.class.getResourceAsStream("tandem-slurm-run.sh")) {
            Files.write(script, in.readAllBytes());
        }
        Path ran = dir.resolve("ran");
        Files.write(dir.resolve("workdir-1"), JobFiles.nulSeparated(List.of(dir.resolve("gone").toString())));
        Files.write(dir.resolve("argv-1"), JobFiles.nulSeparated(List.of("/usr/bin/touch", ran.toString())));
        Files.write(dir.resolve("env-1"), JobFiles.nulSeparated(List.of()));
        Process p = new ProcessBuilder("/bin/bash", script.toString(), dir.toString(), "1").directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isEqualTo(1);
        assertThat(ran).doesNotExist();
        assertThat(dir.resolve("exit-1")).doesNotExist();
        assertThat(JobFiles.readText(dir.resolve(JobFiles.NO_WORKDIR + "1"))).startsWith("cannot enter the job's working directory " + dir.resolve("gone"))
                .endsWith("the job did not run");
        assertThat(output).contains("[tandem] cannot enter the job's working directory");
    }

    /** Runs the script on a profiling run of {@code jobSeconds} with a window of {@code windowMs}, with the fake GPU tools. */
    Process profilingRun(double jobSeconds, long windowMs, boolean dcgm) throws Exception {
        Path script = dir.resolve("run.sh");
        try (InputStream in = SlurmExecutor.class.getResourceAsStream("tandem-slurm-run.sh")) {
            Files.write(script, in.readAllBytes());
        }
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2", dcgm, false);
        Path job = Files.createDirectories(dir.resolve("job"));
        Files.write(job.resolve("workdir-1"), JobFiles.nulSeparated(List.of(job.toString())));
        Files.write(job.resolve("argv-1"), JobFiles.nulSeparated(List.of("/bin/sleep", String.valueOf(jobSeconds))));
        Files.write(job.resolve("env-1"), JobFiles.nulSeparated(List.of()));
        // dcgmi by absolute path only when asked: otherwise a name no node has, which the script must skip quietly
        SlurmSettings s = new SlurmSettings(null, List.of(), 0, 81_920, host.dir().resolve("bin/nvidia-smi").toString(),
                dcgm ? host.dir().resolve("bin/dcgmi").toString() : "tandem-test-no-dcgmi");
        StepSampling.prepare(job, 1, windowMs, s);
        return new ProcessBuilder("/bin/bash", script.toString(), job.toString(), "1").directory(dir.toFile()).inheritIO().start();
    }

    @Test
    void aProfilingRunSamplesBesideTheJobUntilItEnds() throws Exception {
        Process p = profilingRun(1.5, 60_000, true);
        Path job = dir.resolve("job");
        Thread.sleep(700);
        assertThat(StepSampling.read(job, 1, Map.of(0, 5)).complete()).isFalse(); // still sampling
        assertThat(p.waitFor()).isZero();
        // the job ended long before the window: the samplers were stopped with it and the readings marked complete
        GpuReadings r = StepSampling.read(job, 1, Map.of(0, 5));
        assertThat(r.complete()).isTrue();
        assertThat(r.smi()).hasSizeGreaterThanOrEqualTo(Profiler.MIN_SAMPLES).allSatisfy(g -> {
            assertThat(g.index()).isEqualTo(5); // the node's GPU 0 is tandem's GPU 5; its GPU 1 is not this run's
            assertThat(g.utilGpu()).isEqualTo(31.0);
        });
        assertThat(r.dcgm()).isNotEmpty().allSatisfy(g -> assertThat(g.smActive()).isEqualTo(0.312));
        long size = Files.size(job.resolve("nvidia-smi-1.out"));
        Thread.sleep(600);
        assertThat(Files.size(job.resolve("nvidia-smi-1.out"))).as("nvidia-smi still writing after the job ended").isEqualTo(size);
    }

    @Test
    void theSamplersStopWhenTheWindowIsOverWhileTheJobRunsOn() throws Exception {
        Process p = profilingRun(4, 1_000, false);
        Path job = dir.resolve("job");
        long deadline = System.currentTimeMillis() + 3_000;
        while (!StepSampling.read(job, 1, Map.of(0, 0)).complete() && System.currentTimeMillis() < deadline) Thread.sleep(50);
        assertThat(p.isAlive()).as("the job runs on").isTrue();
        GpuReadings r = StepSampling.read(job, 1, Map.of(0, 0));
        assertThat(r.complete()).isTrue();
        assertThat(r.smi()).hasSizeGreaterThanOrEqualTo(3);
        assertThat(r.dcgm()).isEmpty(); // no dcgmi on this "node": sampled without it, as locally
        assertThat(job.resolve("dcgmi-1.out")).doesNotExist();
        assertThat(p.waitFor()).isZero();
        assertThat(Files.readString(job.resolve("exit-1")).strip()).isEqualTo("0");
    }

    @Test
    void aRunThatIsNotProfiledStartsNoSampler() throws Exception {
        Process p = profilingRun(0.2, 0, true);
        assertThat(p.waitFor()).isZero();
        Path job = dir.resolve("job");
        assertThat(job.resolve("nvidia-smi-1.out")).doesNotExist();
        assertThat(job.resolve("samples-1.done")).doesNotExist();
        // no window file: nothing will come, so the readings are complete and empty rather than pending forever
        GpuReadings r = StepSampling.read(job, 1, Map.of(0, 0));
        assertThat(r.complete()).isTrue();
        assertThat(r.smi()).isEmpty();
    }

    @Test
    void aNulByteCannotBePassedAndIsRefused() {
        assertThatThrownBy(() -> JobFiles.nulSeparated(List.of("a\0b"))).isInstanceOf(ExecException.class);
    }
}
