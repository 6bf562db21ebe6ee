package dev.tandem.server.exec;

/**
 * A GPU as the executor found it: {@code index} is nvidia-smi's (PCI order) for local GPUs, a number across the
 * cluster for Slurm's; {@code node} is the machine it is in (this host's name, or the Slurm node), so that a job's
 * GPUs are taken from one node.
 */
public record GpuDevice(int index, String node, String uuid, String name, long memoryMiB) {}
