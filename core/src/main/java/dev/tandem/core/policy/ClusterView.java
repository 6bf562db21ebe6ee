package dev.tandem.core.policy;

import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.Node;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A policy's scratch copy of GPU occupancy while it builds one round of decisions, so that a second decision
 * in the same round sees the GPUs taken by the first.
 */
public final class ClusterView {
    private final SchedulerSnapshot snapshot;
    private final List<List<Job>> occupants;
    private final Map<String, List<Integer>> gpusOf = new HashMap<>();

    public ClusterView(SchedulerSnapshot snapshot) {
        this.snapshot = snapshot;
        int n = snapshot.cluster().gpuCount();
        occupants = new ArrayList<>(n);
        for (int i = 0; i < n; i++) occupants.add(new ArrayList<>(2));
        for (RunningJob r : snapshot.running()) place(r.job(), r.gpus());
    }

    public void place(Job job, List<Integer> gpus) {
        for (int g : gpus) occupants.get(g).add(job);
        gpusOf.put(job.id(), List.copyOf(gpus));
    }

    public void remove(String jobId) {
        List<Integer> gpus = gpusOf.remove(jobId);
        if (gpus == null) return;
        for (int g : gpus) occupants.get(g).removeIf(j -> j.id().equals(jobId));
    }

    public List<Job> occupants(int gpu) { return occupants.get(gpu); }

    public List<Integer> gpusOf(String jobId) { return gpusOf.getOrDefault(jobId, List.of()); }

    public int freeCount() {
        int c = 0;
        for (List<Job> o : occupants) if (o.isEmpty()) c++;
        return c;
    }

    /**
     * Picks {@code n} idle GPUs, preferring one node (the fullest node that still has room, to keep big holes
     * for big jobs), and spreading over the nodes with most idle GPUs only when no node has enough.
     */
    public Optional<List<Integer>> findIdle(int n) {
        List<List<Integer>> freeByNode = new ArrayList<>();
        int total = 0;
        for (Node node : snapshot.cluster().nodes()) {
            List<Integer> free = new ArrayList<>();
            for (Gpu g : node.gpus()) if (occupants.get(g.id()).isEmpty()) free.add(g.id());
            total += free.size();
            if (!free.isEmpty()) freeByNode.add(free);
        }
        if (total < n) return Optional.empty();
        Optional<List<Integer>> single = freeByNode.stream().filter(f -> f.size() >= n).min(Comparator.comparingInt(List::size));
        if (single.isPresent()) return Optional.of(List.copyOf(single.get().subList(0, n)));
        freeByNode.sort(Comparator.comparingInt((List<Integer> f) -> f.size()).reversed());
        List<Integer> pick = new ArrayList<>();
        for (List<Integer> f : freeByNode) {
            for (int g : f) {
                if (pick.size() == n) break;
                pick.add(g);
            }
        }
        return Optional.of(pick);
    }

    /** Device memory on a GPU the policy should count as taken, including each job's margin. */
    public long memoryCharged(int gpu) {
        long s = 0;
        for (Job j : occupants.get(gpu)) s += snapshot.memoryRule().charged(snapshot.memoryNeed(j));
        return s;
    }

    public long capacity(int gpu) { return snapshot.cluster().gpu(gpu).type().memoryMiB(); }

    /** Whether {@code job} fits next to the current occupants of every GPU in {@code gpus}. */
    public boolean memoryFits(Job job, List<Integer> gpus) {
        long need = snapshot.memoryRule().charged(snapshot.memoryNeed(job));
        for (int g : gpus) if (memoryCharged(g) + need > capacity(g)) return false;
        return true;
    }

    /**
     * If {@code job} runs alone on exactly its GPUs (no other job on any of them), returns them; used to find
     * partners for co-location where a gang may only share with a gang of the same size on the same GPUs.
     */
    public Optional<List<Integer>> soleTenancy(String jobId) {
        List<Integer> gpus = gpusOf(jobId);
        if (gpus.isEmpty()) return Optional.empty();
        for (int g : gpus) if (occupants.get(g).size() != 1) return Optional.empty();
        return Optional.of(gpus);
    }
}
