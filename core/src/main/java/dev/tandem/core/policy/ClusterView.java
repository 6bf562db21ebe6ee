package dev.tandem.core.policy;

import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.Node;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A policy's scratch copy of GPU occupancy while it builds one round of decisions, so that a second decision
 * in the same round sees the GPUs taken by the first. It stores only occupied GPUs and per-node idle counts,
 * so asking for idle GPUs costs O(nodes), not O(GPUs), and is O(1) when there are not enough.
 */
public final class ClusterView {
    private final SchedulerSnapshot snapshot;
    private final Map<Integer, List<Job>> occupants = new HashMap<>();
    private final Map<String, List<Integer>> gpusOf = new HashMap<>();
    private final int[] idlePerNode;
    private int idleTotal;

    public ClusterView(SchedulerSnapshot snapshot) {
        this.snapshot = snapshot;
        List<Node> nodes = snapshot.cluster().nodes();
        idlePerNode = new int[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) idlePerNode[i] = nodes.get(i).gpus().size();
        idleTotal = snapshot.cluster().gpuCount();
        for (RunningJob r : snapshot.running()) place(r.job(), r.gpus());
    }

    public void place(Job job, List<Integer> gpus) {
        for (int g : gpus) {
            List<Job> occ = occupants.computeIfAbsent(g, x -> new ArrayList<>(2));
            if (occ.isEmpty()) {
                idlePerNode[snapshot.cluster().nodeIndexOf(g)]--;
                idleTotal--;
            }
            occ.add(job);
        }
        gpusOf.put(job.id(), List.copyOf(gpus));
    }

    public void remove(String jobId) {
        List<Integer> gpus = gpusOf.remove(jobId);
        if (gpus == null) return;
        for (int g : gpus) {
            List<Job> occ = occupants.get(g);
            occ.removeIf(j -> j.id().equals(jobId));
            if (occ.isEmpty()) {
                occupants.remove(g);
                idlePerNode[snapshot.cluster().nodeIndexOf(g)]++;
                idleTotal++;
            }
        }
    }

    public List<Job> occupants(int gpu) { return occupants.getOrDefault(gpu, List.of()); }

    public List<Integer> gpusOf(String jobId) { return gpusOf.getOrDefault(jobId, List.of()); }

    public int freeCount() { return idleTotal; }

    /**
     * Picks {@code n} idle GPUs, preferring one node (the fullest node that still has room, to keep big holes
     * for big jobs), and spreading over the nodes with most idle GPUs only when no node has enough.
     */
    public Optional<List<Integer>> findIdle(int n) {
        if (idleTotal < n) return Optional.empty();
        int best = -1;
        for (int i = 0; i < idlePerNode.length; i++) {
            if (idlePerNode[i] >= n && (best < 0 || idlePerNode[i] < idlePerNode[best])) best = i;
        }
        List<Integer> pick = new ArrayList<>(n);
        if (best >= 0) {
            collectIdle(best, n, pick);
            return Optional.of(List.copyOf(pick));
        }
        Integer[] order = new Integer[idlePerNode.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        java.util.Arrays.sort(order, (a, b) -> Integer.compare(idlePerNode[b], idlePerNode[a]));
        for (int node : order) {
            if (pick.size() == n) break;
            collectIdle(node, n, pick);
        }
        return Optional.of(List.copyOf(pick));
    }

    private void collectIdle(int node, int n, List<Integer> into) {
        for (Gpu g : snapshot.cluster().nodes().get(node).gpus()) {
            if (into.size() == n) return;
            if (!occupants.containsKey(g.id())) into.add(g.id());
        }
    }

    /** Device memory on a GPU the policy should count as taken, including each job's margin. */
    public long memoryCharged(int gpu) {
        long s = 0;
        for (Job j : occupants(gpu)) s += snapshot.memoryRule().charged(snapshot.memoryNeed(j));
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
     * If the job runs alone on exactly its GPUs (no other job on any of them), returns them; used to find
     * partners for co-location where a gang may only share with a gang of the same size on the same GPUs.
     */
    public Optional<List<Integer>> soleTenancy(String jobId) {
        List<Integer> gpus = gpusOf(jobId);
        if (gpus.isEmpty()) return Optional.empty();
        for (int g : gpus) if (occupants(g).size() != 1) return Optional.empty();
        return Optional.of(gpus);
    }
}
