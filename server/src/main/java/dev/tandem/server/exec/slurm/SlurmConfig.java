package dev.tandem.server.exec.slurm;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The settings of a Slurm cluster that decide what the executor can promise, as {@code scontrol show config} lists them
 * ({@code Key = value}, one per line).
 */
record SlurmConfig(Map<String, String> values) {
    static SlurmConfig parse(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf(" = ");
            if (eq <= 0) continue;
            out.putIfAbsent(line.substring(0, eq).strip(), line.substring(eq + 3).strip());
        }
        return new SlurmConfig(Map.copyOf(out));
    }

    String get(String key) { return values.getOrDefault(key, "(null)"); }

    /**
     * The memory (MB) a job of one CPU on one node gets without {@code --mem}: {@code DefMemPerNode}, else
     * {@code DefMemPerCPU}; 0 where neither is set (UNLIMITED) or Slurm does not count memory.
     */
    long defaultJobMemoryMb() {
        long perNode = megabytes(get("DefMemPerNode"));
        return perNode > 0 ? perNode : Math.max(0, megabytes(get("DefMemPerCPU")));
    }

    /** A size as {@code scontrol show config} prints it ({@code 1000}, {@code 1000M}, {@code 2G}), in MB; -1 otherwise. */
    private static long megabytes(String value) {
        String v = value.strip().toUpperCase(Locale.ROOT);
        long unit = 1;
        if (v.endsWith("M")) v = v.substring(0, v.length() - 1);
        else if (v.endsWith("G")) {
            v = v.substring(0, v.length() - 1);
            unit = 1024;
        }
        try {
            return Long.parseLong(v) * unit;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Why a job's {@code --mem} would not be enforced on this cluster, or empty where it is: Slurm kills a job over its
     * memory only when its accounting plugin polls for it ({@code JobAcctGatherParams=OverMemoryKill}) or its task
     * plugin confines jobs to cgroups that limit memory ({@code TaskPlugin=task/cgroup} with cgroup.conf's
     * {@code ConstrainRAMSpace=yes}). Without either, {@code --mem} only books memory on the node.
     */
    Optional<String> memoryNotEnforced() {
        if (get("JobAcctGatherParams").toLowerCase(Locale.ROOT).contains("overmemorykill")) return Optional.empty();
        if (get("TaskPlugin").contains("task/cgroup") && get("ConstrainRAMSpace").equalsIgnoreCase("yes")) return Optional.empty();
        return Optional.of("this Slurm cluster does not enforce a job's memory (it would need JobAcctGatherParams=OverMemoryKill, or "
                + "TaskPlugin=task/cgroup with ConstrainRAMSpace=yes in cgroup.conf; scontrol show config lists JobAcctGatherParams="
                + get("JobAcctGatherParams") + ", TaskPlugin=" + get("TaskPlugin") + ")");
    }
}
