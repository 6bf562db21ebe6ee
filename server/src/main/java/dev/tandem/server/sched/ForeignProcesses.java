package dev.tandem.server.sched;

import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.gpu.ComputeApp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * GPUs busy with processes that are not this daemon's: someone's notebook, a job started by hand, another
 * scheduler. Read from nvidia-smi's list of compute processes each round, less the processes of this daemon's runs
 * ({@link Executor#owns}); such a GPU is unusable for the policy ({@code Placements.setUsable}, through {@link UnusableGpus}) and
 * refused by the placement rules until the processes leave, and {@code tandem gpus} names them.
 */
final class ForeignProcesses {
    private static final Logger log = LoggerFactory.getLogger(ForeignProcesses.class);

    private final List<GpuDevice> devices;
    /** Cluster GPU ids by UUID, as nvidia-smi names a process's GPU. */
    private final Map<String, Integer> byUuid = new HashMap<>();
    private final Supplier<List<ComputeApp>> apps;
    /** The process list judged last: the monitor replaces it every few seconds, the scheduler asks every round. */
    private List<ComputeApp> judged;
    private final LongPredicate ours;
    /** Cluster GPU id to the foreign processes on it, as of the last refresh. */
    private Map<Integer, List<ComputeApp>> byGpu = Map.of();
    /** Pids listed by nvidia-smi but not visible here, each said once. */
    private final Set<Long> unseen = new java.util.HashSet<>();

    ForeignProcesses(List<GpuDevice> devices, Supplier<List<ComputeApp>> apps, LongPredicate ours) {
        this.devices = devices;
        this.apps = apps;
        this.ours = ours;
        for (int i = 0; i < devices.size(); i++) byUuid.put(devices.get(i).uuid(), i);
    }

    /** Reads the latest process list; logs each GPU that became busy or free. Returns whether anything changed. */
    boolean refresh() {
        List<ComputeApp> latest = apps.get();
        if (latest == judged) return false; // nothing new from nvidia-smi since: the same processes, the same verdicts
        judged = latest;
        Map<Integer, List<ComputeApp>> now = new LinkedHashMap<>();
        for (ComputeApp a : latest) {
            Integer gpu = byUuid.get(a.gpuUuid());
            if (gpu == null || ours.test(a.pid())) continue;
            if (ProcessHandle.of(a.pid()).isEmpty()) {
                // gone since nvidia-smi looked, or in a PID namespace this daemon cannot see (a container): no telling whose
                if (unseen.add(a.pid())) log.info("nvidia-smi lists pid {} ({}) on GPU {}, which is not visible here; not counted as someone else's", a.pid(), a.name(), devices.get(gpu).index());
                continue;
            }
            now.computeIfAbsent(gpu, g -> new ArrayList<>()).add(a);
        }
        if (now.equals(byGpu)) return false;
        for (var e : now.entrySet()) {
            if (!byGpu.containsKey(e.getKey())) log.warn("{}; no job of tandem's is placed there until they leave", why(e.getKey(), e.getValue()));
        }
        for (int gpu : byGpu.keySet()) {
            if (!now.containsKey(gpu)) log.info("GPU {}: the processes that were not tandem's have left; it is schedulable again", devices.get(gpu).index());
        }
        byGpu = Map.copyOf(now);
        return true;
    }

    /** Cluster GPU ids with foreign processes. */
    Set<Integer> gpus() { return byGpu.keySet(); }

    /** The foreign processes on a GPU (none if it has none). */
    List<ComputeApp> on(int gpu) { return byGpu.getOrDefault(gpu, List.of()); }

    /** Why a GPU cannot be used now, or null where it can. */
    String why(int gpu) {
        List<ComputeApp> on = byGpu.get(gpu);
        return on == null ? null : why(gpu, on);
    }

    private String why(int gpu, List<ComputeApp> on) {
        return "GPU " + devices.get(gpu).index() + " is busy with processes that are not tandem's: "
                + on.stream().map(ComputeApp::describe).collect(Collectors.joining(", "));
    }
}
