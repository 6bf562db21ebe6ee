package dev.tandem.server.exec.slurm;

import java.util.LinkedHashMap;
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

    static Map<String, String> fields(String line) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = KEY.matcher(line);
        String key = null;
        int valueStart = 0;
        while (m.find()) {
            if (key != null) out.putIfAbsent(key, line.substring(valueStart, m.start()).strip());
            key = m.group(1);
            valueStart = m.end();
        }
        if (key != null) out.putIfAbsent(key, line.substring(valueStart).strip());
        return out;
    }
}
