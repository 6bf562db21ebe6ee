package dev.tandem.server.gpu;

import dev.tandem.server.exec.ToolPath;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Keeps {@code nvidia-smi ... -lms 200} (and {@code dcgmi dmon}, where DCGM is installed) running and remembers
 * the last minutes of readings per GPU: the profiler averages them over a job's solo run, the out-of-memory
 * check looks at memory.used near a crash, and /gpus and /metrics show the latest. A tool that exits is
 * restarted after a pause. Every {@link #APPS_PERIOD_MS} it also asks nvidia-smi which processes use the GPUs
 * ({@link #computeApps()}), so that a GPU busy with processes that are not tandem's is left alone.
 */
public final class GpuMonitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GpuMonitor.class);
    private static final long KEEP_MS = 15 * 60 * 1000;
    private static final long RESTART_PAUSE_MS = 2000;
    public static final long APPS_PERIOD_MS = 2000;

    private final Map<Integer, Deque<GpuSample>> smi = new HashMap<>();
    private final Map<Integer, Deque<GpuSample>> dcgm = new HashMap<>();
    private final List<Thread> readers = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private volatile boolean closed;
    /** The processes on the GPUs at the last successful query (none before the first). */
    private volatile List<ComputeApp> apps = List.of();
    /** dcgmi is on the path and has not given up: profiles wait a while for its readings. */
    private volatile boolean dcgmInUse;

    /** Starts sampling; DCGM is used only when {@code dcgmi} is on the path. */
    public void start(ToolPath tools) {
        Path smiTool = tools.require("nvidia-smi", "tandem serve needs the NVIDIA driver's nvidia-smi");
        spawn("nvidia-smi", smiTool, NvidiaSmiParser.SAMPLE_ARGS, (line, at) -> NvidiaSmiParser.parseSample(line, at), smi, null);
        pollComputeApps(smiTool);
        Optional<Path> dcgmi = tools.find("dcgmi");
        if (dcgmi.isPresent()) {
            dcgmInUse = true;
            spawn("dcgmi", dcgmi.get(), DcgmDmonParser.ARGS, new DcgmDmonParser()::parse, dcgm, () -> dcgmInUse = false);
        } else {
            log.info("dcgmi not on PATH: profiles will have no SM activity, SM occupancy or DRAM activity");
        }
    }

    /** @param givenUp run when the tool exits before its first reading and is not started again; null: always restarted */
    private void spawn(String name, Path tool, List<String> args, BiFunction<String, Long, Optional<GpuSample>> parser,
                       Map<Integer, Deque<GpuSample>> into, Runnable givenUp) {
        Thread t = Thread.ofPlatform().daemon().name("gpu-monitor-" + name).start(() -> {
            boolean everRead = false;
            while (!closed) {
                List<String> cmd = new ArrayList<>();
                cmd.add(tool.toString());
                cmd.addAll(args);
                try {
                    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                    synchronized (processes) {
                        processes.add(p);
                    }
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            Optional<GpuSample> s = parser.apply(line, System.currentTimeMillis());
                            if (s.isPresent()) {
                                everRead = true;
                                add(into, s.get());
                            }
                        }
                    }
                    int code = p.waitFor();
                    synchronized (processes) {
                        processes.remove(p);
                    }
                    if (closed) return;
                    if (!everRead && givenUp != null) {
                        givenUp.run();
                        log.warn("{} exited with {} before giving any reading; not using it", name, code);
                        return;
                    }
                    log.warn("{} exited with {}; restarting it", name, code);
                } catch (IOException e) {
                    if (closed) return;
                    log.warn("cannot run {}: {}", name, e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                try {
                    Thread.sleep(RESTART_PAUSE_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        readers.add(t);
    }

    /** Runs the compute-apps query every {@link #APPS_PERIOD_MS}; a failed or unreadable answer keeps the last one. */
    private void pollComputeApps(Path smiTool) {
        Thread t = Thread.ofPlatform().daemon().name("gpu-monitor-apps").start(() -> {
            String lastProblem = null;
            while (!closed) {
                List<String> cmd = new ArrayList<>();
                cmd.add(smiTool.toString());
                cmd.addAll(NvidiaSmiParser.COMPUTE_APPS_ARGS);
                String problem = null;
                try {
                    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    int code = p.waitFor();
                    if (code != 0) problem = "exited with " + code + ": " + out.strip();
                    else apps = List.copyOf(NvidiaSmiParser.parseComputeApps(out.lines().toList()));
                } catch (IOException | IllegalArgumentException e) {
                    problem = e.getMessage();
                } catch (InterruptedException e) {
                    return;
                }
                if (problem != null && !problem.equals(lastProblem) && !closed) {
                    log.warn("nvidia-smi --query-compute-apps: {}; GPUs keep the processes last seen on them", problem);
                }
                lastProblem = problem;
                try {
                    Thread.sleep(APPS_PERIOD_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        readers.add(t);
    }

    /** The processes nvidia-smi last listed on the GPUs, tandem's own among them. */
    public List<ComputeApp> computeApps() { return apps; }

    /** A reading from elsewhere than nvidia-smi, kept as one of its (the simulated executor's GPUs report here). */
    public void record(GpuSample s) { add(smi, s); }

    private static void add(Map<Integer, Deque<GpuSample>> into, GpuSample s) {
        Deque<GpuSample> q;
        synchronized (into) {
            q = into.computeIfAbsent(s.index(), k -> new ArrayDeque<>());
        }
        synchronized (q) {
            q.addLast(s);
            while (!q.isEmpty() && q.peekFirst().at() < s.at() - KEEP_MS) q.removeFirst();
        }
    }

    /** nvidia-smi readings of a GPU taken at or after {@code since} (epoch ms). */
    public List<GpuSample> smiSince(int gpu, long since) {
        return since(smi, gpu, since);
    }

    /** DCGM readings of a GPU taken at or after {@code since}; empty without DCGM. */
    public List<GpuSample> dcgmSince(int gpu, long since) {
        return since(dcgm, gpu, since);
    }

    /** Both tools' readings of these GPUs since {@code since}, as the profiler takes them. */
    public GpuReadings readings(List<Integer> gpus, long since) {
        return new GpuReadings(gpus.stream().flatMap(g -> smiSince(g, since).stream()).toList(),
                gpus.stream().flatMap(g -> dcgmSince(g, since).stream()).toList(), true, dcgmInUse);
    }

    public Optional<GpuSample> latest(int gpu) {
        Deque<GpuSample> q;
        synchronized (smi) {
            q = smi.get(gpu);
        }
        if (q == null) return Optional.empty();
        synchronized (q) {
            return Optional.ofNullable(q.peekLast());
        }
    }

    private static List<GpuSample> since(Map<Integer, Deque<GpuSample>> from, int gpu, long since) {
        Deque<GpuSample> q;
        synchronized (from) {
            q = from.get(gpu);
        }
        if (q == null) return List.of();
        List<GpuSample> out = new ArrayList<>();
        synchronized (q) {
            for (var it = q.descendingIterator(); it.hasNext(); ) {
                GpuSample s = it.next();
                if (s.at() < since) break;
                out.add(s);
            }
        }
        java.util.Collections.reverse(out);
        return out;
    }

    @Override public void close() {
        closed = true;
        synchronized (processes) {
            for (Process p : processes) p.destroy();
        }
        for (Thread t : readers) t.interrupt();
    }
}
