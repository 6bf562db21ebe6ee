package dev.tandem.core.policy;

import dev.tandem.core.model.Cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Nodes grouped by their number of idle GPUs, each group in ascending node order: the index behind
 * {@link Occupancy#nodesWithIdle}. A world creates it from its idle counts and reports every change.
 */
public final class IdleNodeBuckets {
    private final List<TreeSet<Integer>> byCount = new ArrayList<>();

    /** @param idlePerNode each node's idle GPUs now */
    public IdleNodeBuckets(Cluster cluster, int[] idlePerNode) {
        for (int c = 0; c <= cluster.maxGpusPerNode(); c++) byCount.add(new TreeSet<>());
        for (int n = 0; n < idlePerNode.length; n++) byCount.get(idlePerNode[n]).add(n);
    }

    /** A node's idle count changed from {@code from} to {@code to}. */
    public void moved(int node, int from, int to) {
        byCount.get(from).remove(node);
        byCount.get(to).add(node);
    }

    /** The nodes with exactly {@code count} idle GPUs, ascending (read-only). */
    public NavigableSet<Integer> withIdle(int count) {
        return count >= 0 && count < byCount.size() ? Collections.unmodifiableNavigableSet(byCount.get(count)) : Collections.emptyNavigableSet();
    }
}
