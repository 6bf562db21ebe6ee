package dev.tandem.core.compat;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadPair;
import dev.tandem.core.model.WorkloadSignature;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Wraps a model with what the scheduler has seen: once two signatures have actually shared a GPU, their
 * observed speeds replace the prediction (smoothed over repeated observations), so a mispredicted pair is
 * recognised the next time it is considered (Gandiva-style introspection, kept per signature pair).
 */
public final class OnlineCorrectedModel implements CompatibilityModel, ObservationSink {
    /** Weight of a new observation against the running estimate. */
    private static final double SMOOTHING = 0.5;
    private static final double OBSERVED_UNCERTAINTY = 0.02;

    private final CompatibilityModel base;
    private final Map<WorkloadPair, double[]> observed = new ConcurrentHashMap<>();

    public OnlineCorrectedModel(CompatibilityModel base) {
        this.base = base;
    }

    public CompatibilityModel base() { return base; }

    @Override public String name() { return base.name() + "+online"; }

    @Override public PairPrediction predict(JobProfile a, JobProfile b) {
        return predict(a, b, 1);
    }

    @Override public PairPrediction predict(JobProfile a, JobProfile b, int gpus) {
        if (observed.isEmpty()) return base.predict(a, b, gpus); // no key made before any pair is seen: asked for every candidate pair
        double[] o = observed.get(new WorkloadPair(a.signature(), b.signature(), gpus));
        if (o != null) return new PairPrediction(o[0], o[1], OBSERVED_UNCERTAINTY, "observed");
        return base.predict(a, b, gpus);
    }

    @Override public void observe(WorkloadSignature a, WorkloadSignature b, int gpus, double speedA, double speedB) {
        observed.merge(new WorkloadPair(a, b, gpus), new double[] {speedA, speedB}, OnlineCorrectedModel::smooth);
        observed.merge(new WorkloadPair(b, a, gpus), new double[] {speedB, speedA}, OnlineCorrectedModel::smooth);
    }

    public int observedPairs() { return observed.size(); }

    private static double[] smooth(double[] old, double[] fresh) {
        return new double[] {old[0] + SMOOTHING * (fresh[0] - old[0]), old[1] + SMOOTHING * (fresh[1] - old[1])};
    }
}
