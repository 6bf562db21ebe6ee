package dev.tandem.core.policy;

import dev.tandem.core.model.Cluster;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Nodes grouped by their number of idle GPUs, each group a set of node indexes read in ascending order: the index
 * behind {@link Occupancy#nodeWithIdle}. A world creates it from its idle counts and reports every change. Bit sets,
 * not sorted trees: every start and stop moves a node between groups, and a tree's rebalancing showed in profiles.
 */
public final class IdleNodeBuckets {
    private final List<BitSet> byCount = new ArrayList<>();

    /** @param idlePerNode each node's idle GPUs now */
    public IdleNodeBuckets(Cluster cluster, int[] idlePerNode) {
        for (int c = 0; c <= cluster.maxGpusPerNode(); c++) byCount.add(new BitSet(idlePerNode.length));
        for (int n = 0; n < idlePerNode.length; n++) byCount.get(idlePerNode[n]).set(n);
    }

    /** A node's idle count changed from {@code from} to {@code to}. */
    public void moved(int node, int from, int to) {
        byCount.get(from).clear(node);
        byCount.get(to).set(node);
    }

    /** The first node at or after {@code from} with exactly {@code count} idle GPUs, or -1 if none. */
    public int next(int count, int from) {
        return count >= 0 && count < byCount.size() ? byCount.get(count).nextSetBit(from) : -1;
    }
}
