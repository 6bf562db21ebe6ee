package dev.tandem.server.store;

/**
 * Limits a user asked for on each run of a job, enforced by the run's cgroup: host memory (not the GPU's, which
 * {@code memory_mib} budgets) and the number of processes and threads. Null: no limit.
 */
public record RunLimits(Long hostMemoryMiB, Integer processes) {
    public static final RunLimits NONE = new RunLimits(null, null);

    public boolean any() { return hostMemoryMiB != null || processes != null; }
}
