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
 * shard count (for {@code --slurm-gres shard}) from {@code shard[:type]:N}.
 */
public record SlurmNode(String name, int gpus, int shards, String state, List<String> partitions) {
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
        return new SlurmNode(f.get("NodeName"), count(GPU, gres), count(SHARD, gres), f.getOrDefault("State", "UNKNOWN"),
                parts.isBlank() ? List.of() : Arrays.asList(parts.split(",")));
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
