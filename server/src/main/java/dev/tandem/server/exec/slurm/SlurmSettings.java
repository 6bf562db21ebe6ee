package dev.tandem.server.exec.slurm;

import java.util.List;

/**
 * Which part of a Slurm cluster tandem schedules.
 *
 * @param partition     submit to this partition and use only its nodes (null: the cluster's default, all nodes)
 * @param nodes         use only these nodes (empty: all)
 * @param gpusPerNode   use at most this many GPUs of each node (0: all its gpu GRES), leaving the rest to others
 * @param gpuMemoryMiB  device memory of each GPU (Slurm does not know it; the memory rule needs it)
 */
public record SlurmSettings(String partition, List<String> nodes, int gpusPerNode, long gpuMemoryMiB) {
    public SlurmSettings {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        if (gpusPerNode < 0) throw new IllegalArgumentException("--slurm-gpus-per-node must not be negative");
        if (gpuMemoryMiB <= 0) throw new IllegalArgumentException("--slurm-gpu-memory must be positive");
    }

    public static SlurmSettings defaults() { return new SlurmSettings(null, List.of(), 0, 81_920); }
}
