package dev.tandem.server.exec.slurm;

import dev.tandem.server.gpu.DcgmDmonParser;
import dev.tandem.server.gpu.GpuReadings;
import dev.tandem.server.gpu.NvidiaSmiParser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The files of a profiling run sampled inside its Slurm job step: the daemon cannot run nvidia-smi on the nodes, so
 * the batch script starts the same sampling queries the local GPU monitor runs beside the job, for the profiling
 * window, into the job's directory (on the shared state directory), and this reads them back with the monitor's
 * parsers. Tools and arguments go to the script as NUL-separated argv files, like the job's own argv.
 */
final class StepSampling {
    private StepSampling() {}

    /** Before sbatch: a profiling run gets its window and sampler argv files; any other run must have none. */
    static void prepare(Path dir, int attempt, long profileMs, SlurmSettings settings) throws IOException {
        for (String f : List.of(window(attempt), done(attempt), output("nvidia-smi", attempt), output("dcgmi", attempt))) {
            Files.deleteIfExists(dir.resolve(f));
        }
        if (profileMs <= 0) return;
        Files.write(dir.resolve(argvFile("nvidia-smi", attempt)), JobFiles.nulSeparated(argv(settings.nvidiaSmi(), NvidiaSmiParser.SAMPLE_ARGS)));
        Files.write(dir.resolve(argvFile("dcgmi", attempt)), JobFiles.nulSeparated(argv(settings.dcgmi(), DcgmDmonParser.ARGS)));
        // written last: the script samples only when it finds the window
        Files.writeString(dir.resolve(window(attempt)), String.format(Locale.ROOT, "%.3f%n", profileMs / 1000.0));
    }

    /**
     * The readings once the script has marked them complete (the window is over or the job ended), renumbered from
     * the node's nvidia-smi indices to tandem's GPU ids by {@code localToId}; pending until then. A run that was not
     * sampled in its step (started before this existed) gets complete, empty readings: none will come.
     */
    static GpuReadings read(Path dir, int attempt, Map<Integer, Integer> localToId) {
        if (!Files.exists(dir.resolve(window(attempt)))) return new GpuReadings(List.of(), List.of(), true);
        if (!Files.exists(dir.resolve(done(attempt)))) return GpuReadings.pending();
        return GpuReadings.parse(lines(dir.resolve(output("nvidia-smi", attempt))), lines(dir.resolve(output("dcgmi", attempt))),
                localToId, System.currentTimeMillis());
    }

    private static List<String> argv(String tool, List<String> args) {
        List<String> a = new ArrayList<>(List.of(tool));
        a.addAll(args);
        return a;
    }

    private static List<String> lines(Path f) {
        try {
            return Files.exists(f) ? new String(Files.readAllBytes(f), StandardCharsets.UTF_8).lines().toList() : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }

    // the names tandem-slurm-run.sh uses
    static String window(int attempt) { return "profile-" + attempt; }

    static String done(int attempt) { return "samples-" + attempt + ".done"; }

    static String argvFile(String tool, int attempt) { return tool + "-argv-" + attempt; }

    static String output(String tool, int attempt) { return tool + "-" + attempt + ".out"; }
}
