package dev.tandem.sim.trace;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Node;
import dev.tandem.data.Csv;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a node list of Alibaba's GPU-sharing trace 2023 ({@code openb_node_list_gpu_node.csv},
 * {@code openb_node_list_all_node.csv}: {@code sn,cpu_milli,memory_mib,gpu,model}) into a {@link Cluster}: one
 * node per row named by {@code sn}, with {@code gpu} GPUs of type {@code model}, cpu_milli / 1000 cores and
 * memory_mib of host memory. Nodes without GPUs are left out.
 * <p>
 * The trace gives no GPU memory, so it comes from {@link #GPU_MEMORY_MIB}: the vendors' figures for P100,
 * V100 (V100M16 16 GB, V100M32 32 GB), T4 and A10. G2 and G3 are anonymised models (together 588 of the 1,213
 * GPU nodes, 8 GPUs each) whose memory Alibaba does not publish; they are taken as 16 GB, the smallest memory in
 * this cluster, so that memory-based co-location is never optimistic. Pass your own figures to
 * {@link #read(DataSource, Map)}; any other model not in the table is an error rather than a guess.
 */
public final class AlibabaNodeReader {
    /** GPU memory per model, MiB. */
    public static final Map<String, Long> GPU_MEMORY_MIB = Map.of(
            "P100", 16L * 1024, "V100", 16L * 1024, "V100M16", 16L * 1024, "V100M32", 32L * 1024,
            "T4", 16L * 1024, "A10", 24L * 1024, "G2", 16L * 1024, "G3", 16L * 1024);

    private AlibabaNodeReader() {}

    public static Cluster read(DataSource src) { return read(src, Map.of()); }

    /** @param gpuMemoryMiB memory per GPU model, MiB, overriding or extending {@link #GPU_MEMORY_MIB} */
    public static Cluster read(DataSource src, Map<String, Long> gpuMemoryMiB) {
        Map<String, Long> table = new TreeMap<>(GPU_MEMORY_MIB);
        table.putAll(gpuMemoryMiB);
        Map<String, GpuType> types = new HashMap<>();
        List<Node> nodes = new ArrayList<>();
        int[] nextGpu = {0};
        Csv.read(src, List.of("sn", "cpu_milli", "memory_mib", "gpu", "model"), row -> {
            int count = row.nonNegativeInteger("gpu");
            if (count == 0) return;
            String name = row.text("sn");
            String model = row.text("model");
            Long mem = table.get(model);
            if (mem == null) throw row.error("model", "GPU model '" + model + "' has no known memory size; known: " + table.keySet() + " (give it in the memory table)");
            GpuType type = types.computeIfAbsent(model, m -> new GpuType(m, mem));
            double cpuMilli = row.nonNegativeNumber("cpu_milli");
            double hostMiB = row.nonNegativeNumber("memory_mib");
            List<Gpu> gpus = new ArrayList<>(count);
            for (int k = 0; k < count; k++) gpus.add(new Gpu(nextGpu[0]++, name, k, type));
            nodes.add(new Node(name, gpus, (int) (cpuMilli / 1000), Math.round(hostMiB)));
        });
        if (nodes.isEmpty()) throw new DataFormatException(src.name(), 0, null, "no node with GPUs");
        return new Cluster(nodes);
    }
}
