package dev.tandem.core.compat;

import dev.tandem.core.model.JobProfile;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * tandem's learned compatibility model: distance-weighted k-nearest-neighbour regression in profile space.
 *
 * <p>Each training pair (a, b) gives two samples: the point {@code x = (u_a, m_a, u_b, m_b)} (solo GPU
 * utilisation and memory-bandwidth utilisation of the job and of its partner, as fractions) with target
 * {@code speed_a}, and the mirrored point with target {@code speed_b}. A new pair is predicted from the k
 * nearest samples, weighted {@code 1 / (d + eps)} with a small eps, so a pair measured in training is
 * predicted at (almost) its measurement. Because the features are solo metrics only, a job from a
 * model never seen in any pair is predicted from jobs that look like it, which is what the leave-one-model-out
 * evaluation measures.
 *
 * <p>Uncertainty is the weighted spread of the neighbours' targets, widened by the distance to the nearest
 * sample, so a pair far from anything measured is flagged as uncertain rather than predicted confidently.
 */
public final class KernelRegressionModel implements CompatibilityModel {
    public static final int DEFAULT_K = 10;
    /**
     * Keeps the weight of a sample at distance 0 finite. Small, so the model all but interpolates the pairs it
     * was trained on (a measured pair is predicted at its measurement) while pairs never measured are averaged
     * from their neighbours: leave-one-model-out error is the same for 0.002 and 0.05 (0.0751 vs 0.0750), but
     * a larger value blurs the measured pairs the scheduler relies on.
     */
    private static final double EPS = 0.002;
    /** How much uncertainty grows per unit of distance to the nearest training sample. */
    private static final double DISTANCE_PENALTY = 0.5;

    private final double[][] points;
    private final double[] targets;
    private final int k;
    /** Predictions depend only on the two profiles, and schedulers ask about the same pairs again and again. */
    private final Map<PairKey, PairPrediction> cache = new ConcurrentHashMap<>();

    /** Cache key by profile identity: profiles come from one store, and hashing their fields on every call is costly. */
    private record PairKey(JobProfile a, JobProfile b) {
        @Override public boolean equals(Object o) { return o instanceof PairKey k && k.a == a && k.b == b; }

        @Override public int hashCode() { return 31 * System.identityHashCode(a) + System.identityHashCode(b); }
    }

    private KernelRegressionModel(double[][] points, double[] targets, int k) {
        this.points = points;
        this.targets = targets;
        this.k = k;
    }

    public static KernelRegressionModel fit(List<PairObservation> training) {
        return fit(training, DEFAULT_K);
    }

    public static KernelRegressionModel fit(List<PairObservation> training, int k) {
        if (k < 1) throw new IllegalArgumentException("k must be at least 1");
        List<double[]> pts = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (PairObservation o : training) {
            if (!o.a().hasUtilization() || !o.b().hasUtilization()) continue;
            pts.add(features(o.a(), o.b()));
            ys.add(o.speedA());
            pts.add(features(o.b(), o.a()));
            ys.add(o.speedB());
        }
        if (pts.isEmpty()) throw new IllegalArgumentException("the kernel-regression model needs at least one training pair with utilisation");
        return new KernelRegressionModel(pts.toArray(double[][]::new), ys.stream().mapToDouble(Double::doubleValue).toArray(), Math.min(k, pts.size()));
    }

    static double[] features(JobProfile self, JobProfile other) {
        return new double[] {self.gpuUtil() / 100, self.gmemUtil() / 100, other.gpuUtil() / 100, other.gmemUtil() / 100};
    }

    @Override public String name() { return "knn"; }

    @Override public PairPrediction predict(JobProfile a, JobProfile b) {
        if (!a.hasUtilization() || !b.hasUtilization()) return PairPrediction.unknown("no utilisation in profile");
        return cache.computeIfAbsent(new PairKey(a, b), x -> compute(a, b));
    }

    private PairPrediction compute(JobProfile a, JobProfile b) {
        double[] ra = regress(features(a, b));
        double[] rb = regress(features(b, a));
        return new PairPrediction(ra[0], rb[0], Math.max(ra[1], rb[1]), "knn");
    }

    /** Returns {prediction, uncertainty} at x. */
    private double[] regress(double[] x) {
        // keep the k nearest in a small sorted array: O(n k) instead of sorting all n samples
        double[] bestD = new double[k];
        int[] bestI = new int[k];
        java.util.Arrays.fill(bestD, Double.POSITIVE_INFINITY);
        for (int i = 0; i < points.length; i++) {
            double d = 0;
            for (int j = 0; j < x.length; j++) d += (points[i][j] - x[j]) * (points[i][j] - x[j]);
            if (d >= bestD[k - 1]) continue;
            int at = k - 1;
            while (at > 0 && bestD[at - 1] > d) {
                bestD[at] = bestD[at - 1];
                bestI[at] = bestI[at - 1];
                at--;
            }
            bestD[at] = d;
            bestI[at] = i;
        }
        double wsum = 0, ysum = 0;
        for (int i = 0; i < k; i++) {
            double w = 1 / (Math.sqrt(bestD[i]) + EPS);
            wsum += w;
            ysum += w * targets[bestI[i]];
        }
        double mean = ysum / wsum;
        double var = 0;
        for (int i = 0; i < k; i++) {
            double w = 1 / (Math.sqrt(bestD[i]) + EPS);
            var += w * Math.pow(targets[bestI[i]] - mean, 2);
        }
        double spread = Math.sqrt(var / wsum);
        double far = DISTANCE_PENALTY * Math.sqrt(bestD[0]);
        return new double[] {UtilSumModel.clamp(mean), Math.sqrt(spread * spread + far * far)};
    }
}
