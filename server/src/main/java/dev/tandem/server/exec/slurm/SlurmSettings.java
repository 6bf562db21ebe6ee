package dev.tandem.server.exec.slurm;

import java.util.List;

/**
 * Which part of a Slurm cluster tandem schedules, and how profiling runs sample their GPUs on the nodes.
 *
 * @param partition     submit to this partition and use only its nodes (null: the cluster's default, all nodes)
 * @param nodes         use only these nodes (empty: all)
 * @param gpusPerNode   use at most this many GPUs of each node (0: all its gpu GRES), leaving the rest to others
 * @param gpuMemoryMiB  device memory of each GPU (Slurm does not know it; the memory rule needs it)
 * @param nvidiaSmi     the nvidia-smi a profiling run starts on its node (a name is looked up on the node's PATH)
 * @param dcgmi         the dcgmi a profiling run starts on its node where it exists there (optional, as locally)
 * @param gres          none, or shard: each job also asks Slurm for its share of a GPU's shards, so that Slurm's
 *                      accounting sees tandem's use where others share the nodes (the binding stays tandem's)
 * @param pendingLimitMs how long a run may wait in Slurm's queue (PENDING) before tandem cancels it and takes the job
 *                       back into its own queue, as a run that did not run
 */
public record SlurmSettings(String partition, List<String> nodes, int gpusPerNode, long gpuMemoryMiB, String nvidiaSmi, String dcgmi,
                            String gres, long pendingLimitMs) {
    /** Slurm starts a job on a node with room at once and its backfill pass looks every 30 s by default: a few of those. */
    public static final long DEFAULT_PENDING_LIMIT_MS = 120_000;

    public SlurmSettings {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        if (gpusPerNode < 0) throw new IllegalArgumentException("--slurm-gpus-per-node must not be negative");
        if (gpuMemoryMiB <= 0) throw new IllegalArgumentException("--slurm-gpu-memory must be positive");
        nvidiaSmi = tool(nvidiaSmi, "nvidia-smi", "--slurm-nvidia-smi");
        dcgmi = tool(dcgmi, "dcgmi", "--slurm-dcgmi");
        if (gres == null) gres = "none";
        if (!gres.equals("none") && !gres.equals("shard")) throw new IllegalArgumentException("--slurm-gres must be none or shard, not '" + gres + "'");
        if (pendingLimitMs <= 0) throw new IllegalArgumentException("--slurm-pending-limit must be positive");
    }

    public SlurmSettings(String partition, List<String> nodes, int gpusPerNode, long gpuMemoryMiB, String nvidiaSmi, String dcgmi, String gres) {
        this(partition, nodes, gpusPerNode, gpuMemoryMiB, nvidiaSmi, dcgmi, gres, DEFAULT_PENDING_LIMIT_MS);
    }

    public SlurmSettings(String partition, List<String> nodes, int gpusPerNode, long gpuMemoryMiB, String nvidiaSmi, String dcgmi) {
        this(partition, nodes, gpusPerNode, gpuMemoryMiB, nvidiaSmi, dcgmi, null);
    }

    /** The same with another {@link #pendingLimitMs}. */
    public SlurmSettings withPendingLimitMs(long ms) {
        return new SlurmSettings(partition, nodes, gpusPerNode, gpuMemoryMiB, nvidiaSmi, dcgmi, gres, ms);
    }

    public boolean shardAccounting() { return gres.equals("shard"); }

    /** The node's own nvidia-smi and dcgmi, found on its PATH. */
    public SlurmSettings(String partition, List<String> nodes, int gpusPerNode, long gpuMemoryMiB) {
        this(partition, nodes, gpusPerNode, gpuMemoryMiB, null, null);
    }

    public static SlurmSettings defaults() { return new SlurmSettings(null, List.of(), 0, 81_920); }

    private static String tool(String value, String dflt, String option) {
        if (value == null) return dflt;
        if (value.isBlank() || value.indexOf('\0') >= 0 || value.startsWith("-")) {
            throw new IllegalArgumentException(option + " must name a program (a path, or a name looked up on the node's PATH)");
        }
        return value;
    }
}
