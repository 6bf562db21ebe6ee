package dev.tandem.server.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Parses {@code dcgmi dmon -e 1002,1003,1005} output. dmon prints a header naming the fields, then one row per
 * entity and interval:
 * <pre>
 * #Entity   SMACT        SMOCC        DRAMA
 * ID
 * GPU 0     0.345        0.120        0.210
 * GPU 1     N/A          N/A          N/A
 * </pre>
 * Columns are matched by the header's names (SMACT = 1002, SMOCC = 1003, DRAMA = 1005), so their order does
 * not matter; MIG instance rows ({@code GPU-I}) and unknown entities are skipped. Stateful: one per stream.
 */
public final class DcgmDmonParser {
    public static final List<String> ARGS = List.of("dmon", "-e", "1002,1003,1005", "-d", "1000");

    private List<String> columns = List.of("SMACT", "SMOCC", "DRAMA");

    public Optional<GpuSample> parse(String raw, long at) {
        String line = raw.strip();
        if (line.isEmpty()) return Optional.empty();
        if (line.startsWith("#")) {
            String[] h = line.substring(1).strip().split("\\s+");
            List<String> cols = new ArrayList<>();
            for (int i = 1; i < h.length; i++) cols.add(h[i].toUpperCase(Locale.ROOT)); // h[0] is "Entity"
            columns = cols;
            return Optional.empty();
        }
        String[] f = line.split("\\s+");
        if (f.length < 2 || !f[0].equals("GPU")) return Optional.empty();
        try {
            int index = Integer.parseInt(f[1]);
            double smact = Double.NaN, smocc = Double.NaN, drama = Double.NaN;
            for (int i = 0; i < columns.size() && i + 2 < f.length; i++) {
                double v = value(f[i + 2]);
                switch (columns.get(i)) {
                    case "SMACT" -> smact = v;
                    case "SMOCC" -> smocc = v;
                    case "DRAMA" -> drama = v;
                    default -> { }
                }
            }
            return Optional.of(GpuSample.fromDcgm(index, at, smact, smocc, drama));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static double value(String s) {
        if (s.equalsIgnoreCase("N/A")) return Double.NaN;
        double v = Double.parseDouble(s);
        return v < 0 || v > 1 ? Double.NaN : v;
    }
}
