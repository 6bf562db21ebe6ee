package dev.tandem.core.compat;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Looks pairs up in a table of measurements (what Gavel's policies assume they have); pairs not in the
 * table go to a fallback model, or are unknown when there is none. Measured infeasible pairs (out of memory)
 * are predicted at speed 0.
 */
public final class MeasuredPairModel implements CompatibilityModel {
    private final Map<Key, double[]> table = new HashMap<>();
    private final CompatibilityModel fallback;

    public MeasuredPairModel(List<PairObservation> measurements, CompatibilityModel fallback) {
        for (PairObservation o : measurements) {
            table.put(new Key(o.a().signature(), o.b().signature(), o.gpus()), new double[] {o.speedA(), o.speedB()});
            table.put(new Key(o.b().signature(), o.a().signature(), o.gpus()), new double[] {o.speedB(), o.speedA()});
        }
        this.fallback = fallback;
    }

    @Override public String name() { return fallback == null ? "measured" : "measured+" + fallback.name(); }

    @Override public PairPrediction predict(JobProfile a, JobProfile b) {
        return predict(a, b, 1);
    }

    @Override public PairPrediction predict(JobProfile a, JobProfile b, int gpus) {
        double[] s = table.get(new Key(a.signature(), b.signature(), gpus));
        if (s != null) return new PairPrediction(s[0], s[1], 0.02, "measured");
        return fallback == null ? PairPrediction.unknown("pair never measured") : fallback.predict(a, b, gpus);
    }

    private record Key(WorkloadSignature a, WorkloadSignature b, int gpus) {}
}
