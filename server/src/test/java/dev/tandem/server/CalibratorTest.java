package dev.tandem.server;

import dev.tandem.core.model.JobProfile;
import dev.tandem.data.DataSource;
import dev.tandem.data.LucidPairReader;
import dev.tandem.data.MeasuredPair;
import dev.tandem.data.ProfileReader;
import dev.tandem.server.calibrate.Calibrator;
import dev.tandem.server.calibrate.SuiteWorkload;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.sched.KnownProfiles;
import dev.tandem.server.testing.FakeGpuHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * tandem calibrate on the CPU: the workload suite's real PyTorch jobs (Debian's python3-torch) alone and in pairs,
 * the GPU readings from the recorded nvidia-smi output of the fake GPU host (there is no GPU here; the real path runs
 * the real nvidia-smi, see scripts/gpu-check.sh). Resumes from its own files, and reports what the budget left out.
 */
@EnabledIf("dev.tandem.server.WorkloadSuiteTest#torchInstalled")
class CalibratorTest {
    @TempDir Path dir;

    private String calibrate(FakeGpuHost host, String workloads, double budgetSeconds) throws Exception {
        GpuDevice gpu = LocalExecutor.discoverGpus(host.tools()).getFirst();
        List<String> suite = List.of(WorkloadSuiteTest.python(), Path.of("..", "workloads", "train.py").toAbsolutePath().normalize().toString(),
                "--threads", "1");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (GpuMonitor monitor = new GpuMonitor(); PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            monitor.start(host.tools());
            new Calibrator(new Calibrator.Settings(SuiteWorkload.parseList(workloads), suite, 4, budgetSeconds, dir.resolve("cal")), gpu, monitor, out).run();
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void measuresAloneAndInPairsResumesFromItsFilesAndSaysWhatTheBudgetLeftOut() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        String first = calibrate(host, "resnet18:8", 600);
        assertThat(first).contains("[1/1] alone resnet18:8").contains("[1/1] pair resnet18:8 + resnet18:8").contains("1 solo profile(s) and 1 pair(s) measured now");

        String second = calibrate(host, "resnet18:8,neumf:64", 600);
        assertThat(second).contains("resuming: 1 solo profile(s) and 1 pair(s) already measured").contains("[1/1] alone neumf:64")
                .doesNotContain("alone resnet18:8").contains("1 solo profile(s) and 2 pair(s) measured now (1 and 1 before)")
                .contains("held-out error of the compatibility model on the measured pairs");

        // what it wrote is what serve --known-profiles and simulate --profiles / --truth read
        List<JobProfile> profiles = ProfileReader.read(DataSource.of(dir.resolve("cal/profiles.csv")), 0);
        assertThat(profiles).extracting(p -> p.signature().label()).containsExactly("resnet18/synthetic/bs8", "neumf/synthetic/bs64");
        assertThat(profiles).allMatch(p -> p.soloSpeed() > 0 && p.gmemMiB() > 0 && p.gpuUtil() >= 0);
        assertThat(KnownProfiles.load(dir.resolve("cal/profiles.csv").toString())).hasSize(2);
        List<MeasuredPair> pairs = LucidPairReader.read(DataSource.of(dir.resolve("cal/pairs.csv")), true);
        assertThat(pairs).hasSize(3);
        assertThat(pairs).allMatch(p -> !p.infeasible() && p.speedA() > 0.1 && p.speedA() <= 2 && p.speedB() > 0.1);
        assertThat(pairs).extracting(p -> p.a().model() + "+" + p.b().model()).containsExactlyInAnyOrder("resnet18+resnet18", "resnet18+neumf", "neumf+neumf");

        // a budget too small for anything: nothing measured, and it says what is left
        String third = calibrate(host, "resnet18:8,neumf:64,lstm:8", 1);
        assertThat(third).contains("0 solo profile(s) and 0 pair(s) measured now").contains("not measured for lack of time: lstm:8 alone");
        assertThat(Files.readAllLines(dir.resolve("cal/pairs.csv"))).hasSize(4);
    }

    @Test
    void badSettingsAreRefusedSayingWhy() {
        assertThatThrownBy(() -> SuiteWorkload.parseList("resnet18:big")).hasMessage("'resnet18:big': the batch size must be a whole number");
        assertThatThrownBy(() -> SuiteWorkload.parseList("resnet18:8:fp8")).hasMessage("'resnet18:8:fp8': the third field can only be amp");
        assertThatThrownBy(() -> SuiteWorkload.parseList("lstm,lstm:32")).hasMessage("workload lstm:32 is listed twice");
        assertThatThrownBy(() -> SuiteWorkload.parseList("ResNet/18")).hasMessageContaining("lower-case letters, digits, _");
        assertThatThrownBy(() -> new Calibrator.Settings(SuiteWorkload.parseList("lstm"), List.of("python3"), 1, 60, dir))
                .hasMessage("--measure must be at least 2s, got 1.0 s");
    }
}
