package dev.tandem.data.truth;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.MeasuredPair;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Ground truth from measurements (Lucid's pair table or Gavel's throughputs); pairs the data does not have
 * come from the {@link ContentionFallback}. Where a pair was measured more than once the measurements are
 * averaged.
 */
public final class MeasuredTruth implements InterferenceTruth {
    private record Key(WorkloadSignature a, WorkloadSignature b, int gpus) {}

    private final String name;
    private final Map<Key, TruthPair> table = new HashMap<>();
    private final ContentionFallback fallback;

    public MeasuredTruth(String name, List<MeasuredPair> pairs, ContentionFallback fallback) {
        this.name = name;
        this.fallback = fallback;
        Map<Key, double[]> acc = new HashMap<>();
        for (MeasuredPair p : pairs) {
            if (p.infeasible()) {
                table.put(new Key(p.a(), p.b(), p.gpus()), new TruthPair(0, 0, true, Double.NaN, true));
                table.put(new Key(p.b(), p.a(), p.gpus()), new TruthPair(0, 0, true, Double.NaN, true));
                continue;
            }
            add(acc, new Key(p.a(), p.b(), p.gpus()), p.speedA(), p.speedB(), p.pairMemoryMiB());
            if (!p.a().equals(p.b())) add(acc, new Key(p.b(), p.a(), p.gpus()), p.speedB(), p.speedA(), p.pairMemoryMiB());
        }
        acc.forEach((k, v) -> {
            if (!table.containsKey(k)) table.put(k, new TruthPair(v[0] / v[3], v[1] / v[3], true, v[4] > 0 ? v[2] / v[4] : Double.NaN, false));
        });
    }

    private static void add(Map<Key, double[]> acc, Key k, double sa, double sb, double mem) {
        double[] v = acc.computeIfAbsent(k, x -> new double[5]);
        v[0] += sa;
        v[1] += sb;
        v[3] += 1;
        if (!Double.isNaN(mem)) {
            v[2] += mem;
            v[4] += 1;
        }
    }

    @Override public String name() { return name; }

    @Override public TruthPair pair(JobProfile a, JobProfile b, int gpus) {
        TruthPair t = table.get(new Key(a.signature(), b.signature(), gpus));
        return t != null ? t : fallback.pair(a, b);
    }
}
