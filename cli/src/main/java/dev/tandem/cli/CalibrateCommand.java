package dev.tandem.cli;

import dev.tandem.server.DurationConverter;
import dev.tandem.server.calibrate.Calibrator;
import dev.tandem.server.calibrate.SuiteWorkload;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.gpu.GpuMonitor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code tandem calibrate}: measure a workload suite alone and in pairs on this machine's GPU ({@link Calibrator}). */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false, description = {
        "Measure a workload suite on this machine's GPU, alone and in pairs, within a time budget.",
        "Writes profiles.csv and pairs.csv (for serve --known-profiles, simulate --profiles/--truth/--train). Resumes where an",
        "interrupted run stopped; when the budget cannot cover every pair it measures those the compatibility model is least",
        "sure about, and reports its held-out error."},
        footer = {"", "Example: tandem calibrate --workloads resnet18:64,dcgan:64,lstm:32 --budget 30m --measure 60s --out calibration/"})
final class CalibrateCommand implements Callable<Integer> {
    @Option(names = "--workloads", defaultValue = "resnet18:32,resnet50:32,mobilenet:32,transformer:32,lstm:32,dcgan:32,neumf:256,ppo:64",
            paramLabel = "MODEL[:BATCH[:amp]],...", description = "the suite's models to measure (default: ${DEFAULT-VALUE})")
    String workloads;

    @Option(names = "--budget", defaultValue = "30m", converter = DurationConverter.Seconds.class, description = "time for the whole calibration (default: ${DEFAULT-VALUE})")
    double budgetSeconds;

    @Option(names = "--measure", defaultValue = "60s", converter = DurationConverter.Seconds.class, description = "how long each measurement trains (default: ${DEFAULT-VALUE})")
    double measureSeconds;

    @Option(names = "--gpu", defaultValue = "0", description = "nvidia-smi index of the GPU to measure on (default: ${DEFAULT-VALUE})")
    int gpuIndex;

    @Option(names = "--out", defaultValue = "calibration", description = "folder of profiles.csv, pairs.csv and the runs' output (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--suite", defaultValue = "workloads/train.py", description = "the workload suite's script (default: ${DEFAULT-VALUE}, run from the repository)")
    Path suite;

    @Option(names = "--python", defaultValue = "/usr/bin/python3", description = "the Python with PyTorch that runs it (default: ${DEFAULT-VALUE})")
    String python;

    @Option(names = "--suite-arg", paramLabel = "ARG", description = "an extra argument for every run, e.g. --suite-arg=--threads --suite-arg=1 (repeatable)")
    List<String> suiteArgs = new ArrayList<>();

    @Override public Integer call() throws Exception {
        if (!Files.isRegularFile(suite)) throw new IllegalArgumentException("--suite: no workload suite at " + suite.toAbsolutePath() + " (run from the repository, or name train.py)");
        List<String> command = new ArrayList<>(List.of(python, suite.toAbsolutePath().toString()));
        command.addAll(suiteArgs);
        Calibrator.Settings settings = new Calibrator.Settings(SuiteWorkload.parseList(workloads), command, measureSeconds, budgetSeconds, out.toAbsolutePath());
        ToolPath tools = ToolPath.fromEnvironment();
        GpuDevice gpu = LocalExecutor.discoverGpus(tools).stream().filter(g -> g.index() == gpuIndex).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--gpu: nvidia-smi lists no GPU " + gpuIndex));
        try (GpuMonitor monitor = new GpuMonitor()) {
            monitor.start(tools);
            new Calibrator(settings, gpu, monitor, System.out).run();
        }
        return 0;
    }
}
