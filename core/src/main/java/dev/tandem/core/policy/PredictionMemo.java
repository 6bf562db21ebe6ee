package dev.tandem.core.policy;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.WorkloadSignature;

import java.util.HashMap;
import java.util.Map;

/**
 * The oracle's answers by gang size, then each signature of the pair (nested maps, so that a look-up allocates no
 * key): packing rules ask about the same signature pairs many times. A snapshot keeps one for its decision; a world
 * whose profiles do not change and whose oracle learns only where the world tells it ({@link #forget}) keeps one
 * across decisions ({@link SchedulerSnapshot#withPredictionMemo}), so a pair is predicted once until it is observed.
 */
public final class PredictionMemo {
    private final Map<Integer, Map<WorkloadSignature, Map<WorkloadSignature, PairPrediction>>> byGpus = new HashMap<>();

    /** The answers for a pair whose first job is {@code a} on {@code gpus} GPUs: read and filled by the snapshot. */
    Map<WorkloadSignature, PairPrediction> with(int gpus, WorkloadSignature a) {
        return byGpus.computeIfAbsent(gpus, g -> new HashMap<>()).computeIfAbsent(a, sig -> new HashMap<>());
    }

    /** The oracle learned about the pair (an observation of {@code a} next to {@code b}): both orders are asked again. */
    public void forget(WorkloadSignature a, WorkloadSignature b, int gpus) {
        Map<WorkloadSignature, Map<WorkloadSignature, PairPrediction>> m = byGpus.get(gpus);
        if (m == null) return;
        Map<WorkloadSignature, PairPrediction> withA = m.get(a), withB = m.get(b);
        if (withA != null) withA.remove(b);
        if (withB != null) withB.remove(a);
    }
}
