package dev.tandem.sim.workload;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/** The distribution of gang sizes, e.g. {@code 1:0.7,2:0.1,4:0.15,8:0.05} (Gavel's Philly-derived mix). */
public record SizeMix(Map<Integer, Double> weights) {
    public static final SizeMix PHILLY = parse("1:0.7,2:0.1,4:0.15,8:0.05");

    public SizeMix {
        if (weights.isEmpty()) throw new IllegalArgumentException("size mix is empty");
        weights = Map.copyOf(weights);
    }

    /** Parses {@code SIZE:WEIGHT,...}; a bare {@code SIZE} means every job has that size. */
    public static SizeMix parse(String s) {
        Map<Integer, Double> w = new LinkedHashMap<>();
        for (String part : s.split(",")) {
            String[] kv = part.trim().split(":");
            try {
                int size = Integer.parseInt(kv[0].trim());
                double weight = kv.length > 1 ? Double.parseDouble(kv[1].trim()) : 1.0;
                if (size < 1 || !(weight > 0) || kv.length > 2) throw new NumberFormatException();
                w.merge(size, weight, Double::sum);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("size mix '" + s + "': '" + part + "' is not SIZE:WEIGHT with SIZE >= 1 and WEIGHT > 0");
            }
        }
        return new SizeMix(w);
    }

    int draw(SplittableRandom rnd) {
        double total = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        double x = rnd.nextDouble() * total;
        int last = 1;
        for (var e : new java.util.TreeMap<>(weights).entrySet()) {
            last = e.getKey();
            x -= e.getValue();
            if (x < 0) return e.getKey();
        }
        return last;
    }

    @Override public String toString() {
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(weights).forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ",").append(k).append(':').append(v));
        return sb.toString();
    }
}
