package dev.tandem.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An immutable set of nodes; GPUs are numbered 0..gpuCount-1 across the cluster. Whether one job's GPUs may lie on
 * several nodes is a property of the world: simulated clusters allow it (traces hold gangs wider than a node), the
 * live daemon's executors start a job on one node only, so its cluster is {@link #withGangsOnOneNode()}.
 */
public final class Cluster {
    private static final Pattern SPEC = Pattern.compile("(\\d+)x(\\d+):([A-Za-z0-9_.]+)-(\\d+)(GB|G|MB|M)");

    private final List<Node> nodes;
    private final List<Gpu> gpus;
    private final int[] nodeIndexOfGpu;
    private final long maxGpuMemoryMiB;
    private final long minGpuMemoryMiB;
    private final int maxGpusPerNode;
    private final boolean gangsSpanNodes;

    /** A cluster whose gangs may span nodes. */
    public Cluster(List<Node> nodes) {
        this(nodes, true);
    }

    private Cluster(List<Node> nodes, boolean gangsSpanNodes) {
        this.gangsSpanNodes = gangsSpanNodes;
        this.nodes = List.copyOf(nodes);
        List<Gpu> all = new ArrayList<>();
        for (Node n : nodes) all.addAll(n.gpus());
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).id() != i) throw new IllegalArgumentException("GPU ids must be 0..n-1 in node order; GPU " + all.get(i) + " is at position " + i);
        }
        this.gpus = List.copyOf(all);
        this.nodeIndexOfGpu = new int[all.size()];
        for (int n = 0; n < nodes.size(); n++) for (Gpu g : nodes.get(n).gpus()) nodeIndexOfGpu[g.id()] = n;
        this.maxGpuMemoryMiB = all.stream().mapToLong(g -> g.type().memoryMiB()).max().orElse(0);
        this.minGpuMemoryMiB = all.stream().mapToLong(g -> g.type().memoryMiB()).min().orElse(0);
        this.maxGpusPerNode = nodes.stream().mapToInt(n -> n.gpus().size()).max().orElse(0);
    }

    /** The same nodes, where every job's GPUs must lie on one node. */
    public Cluster withGangsOnOneNode() {
        return new Cluster(nodes, false);
    }

    /** Whether one job's GPUs may lie on several nodes. */
    public boolean gangsSpanNodes() { return gangsSpanNodes; }

    /** The widest job this cluster can ever run: all its GPUs, or the largest node's when gangs stay on one node. */
    public int widestJob() { return gangsSpanNodes ? gpus.size() : maxGpusPerNode; }

    /** The most GPUs any node has. */
    public int maxGpusPerNode() { return maxGpusPerNode; }

    /** Builds {@code nodes} identical nodes of {@code gpusPerNode} GPUs each. */
    public static Cluster homogeneous(int nodes, int gpusPerNode, GpuType type, int cpusPerNode, long hostMemMiB) {
        List<Node> list = new ArrayList<>();
        int id = 0;
        for (int n = 0; n < nodes; n++) {
            String name = String.format(Locale.ROOT, "node%02d", n);
            List<Gpu> g = new ArrayList<>();
            for (int i = 0; i < gpusPerNode; i++) g.add(new Gpu(id++, name, i, type));
            list.add(new Node(name, g, cpusPerNode, hostMemMiB));
        }
        return new Cluster(list);
    }

    /**
     * Parses a compact spec {@code NODESxGPUS:TYPE-MEM}, e.g. {@code 4x8:RTX3090-24GB} or {@code 1x8:V100-16GB}.
     * Several specs may be joined with {@code +} for a mixed cluster.
     */
    public static Cluster parse(String spec) {
        List<Node> list = new ArrayList<>();
        int id = 0;
        for (String part : spec.split("\\+")) {
            Matcher m = SPEC.matcher(part.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException("cluster spec '" + part + "' is not NODESxGPUS:TYPE-MEM (e.g. 4x8:RTX3090-24GB)");
            }
            int nodes = Integer.parseInt(m.group(1));
            int per = Integer.parseInt(m.group(2));
            if (nodes <= 0 || per <= 0) throw new IllegalArgumentException("cluster spec '" + part + "' needs at least one node and one GPU per node");
            long mem = Long.parseLong(m.group(4));
            long mib = m.group(5).startsWith("G") ? mem * 1024 : mem;
            GpuType type = new GpuType(m.group(3), mib);
            for (int n = 0; n < nodes; n++) {
                String name = String.format(Locale.ROOT, "%s-node%02d", m.group(3).toLowerCase(Locale.ROOT), list.size());
                List<Gpu> g = new ArrayList<>();
                for (int i = 0; i < per; i++) g.add(new Gpu(id++, name, i, type));
                list.add(new Node(name, g, 8 * per, 64L * 1024 * per));
            }
        }
        return new Cluster(list);
    }

    public List<Node> nodes() { return nodes; }
    public List<Gpu> gpus() { return gpus; }
    public int gpuCount() { return gpus.size(); }
    public Gpu gpu(int id) { return gpus.get(id); }

    /** The memory of the largest GPU: what any single job may need at most. */
    public long maxGpuMemoryMiB() { return maxGpuMemoryMiB; }

    /** The smallest GPU's memory: a job needing no more fits on every GPU. */
    public long minGpuMemoryMiB() { return minGpuMemoryMiB; }

    /** Index into {@link #nodes()} of the node that holds this GPU. */
    public int nodeIndexOf(int gpuId) { return nodeIndexOfGpu[gpuId]; }

    @Override public String toString() {
        return nodes.size() + " nodes, " + gpus.size() + " GPUs";
    }
}
