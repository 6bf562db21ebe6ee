package dev.tandem.server.calibrate;

import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.LogScanner;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.gpu.GpuReadings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One measurement: one workload alone, or two at once, on one GPU for a fixed time. Each runs as a process of its
 * own (argv, no shell) with CUDA_VISIBLE_DEVICES set to the GPU; its output goes to a log file, read for
 * {@code tandem:progress} lines and CUDA out-of-memory messages as the daemon reads jobs' logs. A job's speed is its
 * progress over the second half of its window (the first half covers start-up and warm-up).
 */
final class Measurement {
    /** What one job of a measurement did: iterations per second (NaN when it printed too little), out of memory. */
    record Job(SuiteWorkload workload, double speed, boolean oom, int exitCode, int progressLines, String lastOutput) {
        boolean usable() { return !oom && exitCode == 0 && Double.isFinite(speed) && speed > 0; }

        /** Why it gave no speed, in words. */
        String problem() {
            if (oom) return "CUDA out of memory";
            if (exitCode != 0) return "exited with " + exitCode;
            return progressLines + " progress line(s) in the window, too few for a speed (measure longer, or a smaller batch)";
        }
    }

    /** The jobs' results, and the GPU's readings over the measurement (from the monitor). */
    record Result(List<Job> jobs, GpuReadings readings, long startedAt, long endedAt) {}

    private static final long POLL_MS = 200;

    private Measurement() {}

    static Result run(List<SuiteWorkload> workloads, List<String> suiteCommand, GpuDevice gpu, GpuMonitor monitor, double seconds,
                      Path logDir, String name) throws IOException, InterruptedException {
        Files.createDirectories(logDir);
        long started = System.currentTimeMillis();
        List<Process> procs = new ArrayList<>();
        List<LogScanner> scanners = new ArrayList<>();
        List<List<long[]>> progress = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int i = 0; i < workloads.size(); i++) {
                Path log = logDir.resolve(name + (workloads.size() > 1 ? "-" + (i + 1) : "") + ".log");
                Files.deleteIfExists(log);
                ProcessBuilder pb = new ProcessBuilder(workloads.get(i).argv(suiteCommand, seconds)).redirectErrorStream(true)
                        .redirectOutput(log.toFile());
                Map<String, String> env = pb.environment();
                env.put("CUDA_VISIBLE_DEVICES", gpu.uuid());
                env.put("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
                env.put("PYTHONUNBUFFERED", "1");
                procs.add(pb.start());
                scanners.add(new LogScanner(log, 0));
                progress.add(new ArrayList<>());
                logs.add(log);
            }
            long deadline = started + (long) (seconds * 1000) + 120_000; // start-up (a PyTorch import) and the end of a step
            while (procs.stream().anyMatch(Process::isAlive)) {
                if (System.currentTimeMillis() > deadline) {
                    procs.forEach(Process::destroyForcibly);
                    break;
                }
                long now = System.currentTimeMillis();
                for (int i = 0; i < procs.size(); i++) for (long it : scanners.get(i).scan()) progress.get(i).add(new long[] {now, it});
                Thread.sleep(POLL_MS);
            }
            long ended = System.currentTimeMillis();
            List<Job> jobs = new ArrayList<>();
            for (int i = 0; i < procs.size(); i++) {
                Process p = procs.get(i);
                p.waitFor(10, TimeUnit.SECONDS);
                for (long it : scanners.get(i).finish()) progress.get(i).add(new long[] {ended, it});
                int code = p.isAlive() ? -1 : p.exitValue();
                jobs.add(new Job(workloads.get(i), speed(progress.get(i)), scanners.get(i).oomSeen(), code, progress.get(i).size(), tail(logs.get(i))));
            }
            return new Result(jobs, monitor.readings(List.of(gpu.index()), started), started, ended);
        } finally {
            for (Process p : procs) if (p.isAlive()) p.destroyForcibly();
        }
    }

    /** Iterations per second over the second half of the progress seen (warm-up excluded); NaN with too few points. */
    static double speed(List<long[]> points) {
        if (points.size() < 3) return Double.NaN;
        long first = points.getFirst()[0], last = points.getLast()[0];
        long mid = first + (last - first) / 2;
        long[] from = null;
        for (long[] p : points) {
            if (p[0] >= mid) {
                from = p;
                break;
            }
        }
        long[] to = points.getLast();
        if (from == null || to[0] <= from[0] || to[1] <= from[1]) return Double.NaN;
        return (to[1] - from[1]) * 1000.0 / (to[0] - from[0]);
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }
}
