package dev.tandem.server.sched;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The live runs and which GPUs they occupy (cluster GPU ids). A run stays here until its process has ended. */
final class RunTable {
    private final Map<Long, Run> byJob = new LinkedHashMap<>();
    private final List<List<Run>> byGpu = new ArrayList<>();

    RunTable(int gpus) {
        for (int i = 0; i < gpus; i++) byGpu.add(new ArrayList<>(2));
    }

    void add(Run r) {
        byJob.put(r.jobId, r);
        for (int g : r.gpus) byGpu.get(g).add(r);
    }

    void remove(Run r) {
        byJob.remove(r.jobId);
        for (int g : r.gpus) byGpu.get(g).remove(r);
    }

    Run get(long jobId) { return byJob.get(jobId); }

    Collection<Run> all() { return byJob.values(); }

    List<Run> on(int gpu) { return byGpu.get(gpu); }

    int gpuCount() { return byGpu.size(); }

    /** GPUs running at least {@code tenants} jobs (1: busy, 2: shared). */
    int gpusWithAtLeast(int tenants) {
        int n = 0;
        for (List<Run> on : byGpu) if (on.size() >= tenants) n++;
        return n;
    }

    /** Runs on any of these GPUs. */
    List<Run> neighboursOn(List<Integer> gpus) {
        List<Run> out = new ArrayList<>();
        for (int g : gpus) for (Run o : byGpu.get(g)) if (!out.contains(o)) out.add(o);
        return out;
    }

    /** Other runs sharing any of this run's GPUs. */
    List<Run> neighbours(Run r) {
        List<Run> out = new ArrayList<>();
        for (int g : r.gpus) for (Run o : byGpu.get(g)) if (o != r && !out.contains(o)) out.add(o);
        return out;
    }
}
