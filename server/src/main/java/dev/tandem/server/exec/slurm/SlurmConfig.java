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
