package dev.tandem.server.exec.slurm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node as {@code scontrol show node -o} lists it: its GPU count comes from {@code Gres=gpu[:type]:N[(S:...)]}, its
 * shard count (for {@code --slurm-gres shard}) from {@code shard[:type]:N}; the CPUs and memory (MB) Slurm may give
 * jobs ({@code CPUEfctv}, else {@code CPUTot}; {@code RealMemory}) and how much of each its jobs hold
 * ({@code CPUAlloc}, {@code AllocMem}), -1 where it does not say.
 */
public record SlurmNode(String name, int gpus, int shards, String state, List<String> partitions, int cpus, int cpusAllocated,
                        long memoryMb, long memoryAllocatedMb) {
    private static final Pattern GPU = Pattern.compile("^gpu(?::[^:(]+)?:(\\d+)");
    private static final Pattern SHARD = Pattern.compile("^shard(?::[^:(]+)?:(\\d+)");

    /** DOWN, DRAIN(ED/ING), FAIL, NOT_RESPONDING (a trailing '*'), in any combination Slurm prints (DOWN+DRAIN, IDLE*...). */
    public boolean unavailable() {
        String s = state.toUpperCase(Locale.ROOT);
        return s.contains("DOWN") || s.contains("DRAIN") || s.contains("FAIL") || s.contains("NOT_RESPONDING") || s.endsWith("*");
    }

    public static List<SlurmNode> parseAll(String text) {
        List<SlurmNode> nodes = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || !line.startsWith("NodeName=")) continue;
            nodes.add(parse(SlurmText.fields(line)));
        }
        return nodes;
    }

    static SlurmNode parse(Map<String, String> f) {
        String gres = f.getOrDefault("Gres", "");
        String parts = f.getOrDefault("Partitions", "");
        int cpus = (int) number(f.getOrDefault("CPUEfctv", f.get("CPUTot")));
        return new SlurmNode(f.get("NodeName"), count(GPU, gres), count(SHARD, gres), f.getOrDefault("State", "UNKNOWN"),
                parts.isBlank() ? List.of() : Arrays.asList(parts.split(",")), cpus, (int) number(f.get("CPUAlloc")),
                number(f.get("RealMemory")), number(f.get("AllocMem")));
    }

    /**
     * Why Slurm could start no new job of tandem's on this node now, or null: no CPU is free, or less memory than a
     * job asks for by default ({@code defaultMemoryMb}; 0: the cluster sets no default, so memory is not looked at).
     * A job tandem submits asks for one CPU, and for memory only with a host memory limit (then more than the
     * default may be needed: such a run waits in Slurm's queue, see {@link SlurmSettings#pendingLimitMs}).
     */
    String full(long defaultMemoryMb) {
        if (cpus > 0 && cpusAllocated >= cpus) return "has no free CPU (" + cpusAllocated + " of " + cpus + " allocated to Slurm jobs)";
        if (defaultMemoryMb > 0 && memoryMb > 0 && memoryAllocatedMb >= 0 && memoryMb - memoryAllocatedMb < defaultMemoryMb) {
            return "has " + (memoryMb - memoryAllocatedMb) + " MB of memory free, less than a job asks for (" + defaultMemoryMb + " MB)";
        }
        return null;
    }

    private static long number(String value) {
        if (value == null) return -1;
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static int count(Pattern kind, String gres) {
        int n = 0;
        for (String g : gres.split(",")) {
            Matcher m = kind.matcher(g.strip());
            if (m.find()) n += Integer.parseInt(m.group(1));
        }
        return n;
    }
}
