package dev.tandem.server.exec.slurm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits one line of {@code scontrol show job|node -o} into its fields. The text is {@code Key=value} pairs
 * separated by spaces, but some values contain spaces themselves ({@code OS=Linux 6.1 #1 SMP}), so a field
 * runs up to the next " Key=" rather than the next space. The JSON output of 22.05 ignores filters, and the
 * key=value text is the same in every Slurm version since 2.x.
 */
final class SlurmText {
    private static final Pattern KEY = Pattern.compile("(?:^|\\s)([A-Za-z][A-Za-z0-9_/:]*)=");

    private SlurmText() {}

    /** The fields of a line by key; a key that comes again ({@code -d}'s per-node details) keeps its first value. */
    static Map<String, String> fields(String line) {
        return fields(pairs(line));
    }

    /** {@link #fields(String)} of a line already split into its {@link #pairs}. */
    static Map<String, String> fields(List<Map.Entry<String, String>> pairs) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : pairs) out.putIfAbsent(e.getKey(), e.getValue());
        return out;
    }

    /** Every field of a line in order, a key that comes again each time (Nodes=, GRES= per node of a job). */
    static List<Map.Entry<String, String>> pairs(String line) {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        Matcher m = KEY.matcher(line);
        String key = null;
        int valueStart = 0;
        while (m.find()) {
            if (key != null) out.add(Map.entry(key, line.substring(valueStart, m.start()).strip()));
            key = m.group(1);
            valueStart = m.end();
        }
        if (key != null) out.add(Map.entry(key, line.substring(valueStart).strip()));
        return out;
    }
}
