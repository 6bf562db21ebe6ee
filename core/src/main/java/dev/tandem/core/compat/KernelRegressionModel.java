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

    /** The features of a sample ({@link #features}). */
    private static final int DIMS = 4;
    /**
     * The samples' features in the order of their first feature: the one at sorted place j at
     * {@code [DIMS * j, DIMS * j + DIMS)}, its index among the samples in {@link #sampleAt}. A query scans outwards
     * from its own first feature and stops where that feature's distance alone exceeds the k-th nearest: on the
     * demo's first plan, with ~1,900 samples and a still cold JIT, the full scan of every sample was a seventh of
     * tandem's run.
     */
    private final double[] points;
    private final int[] sampleAt;
    private final double[] targets;
    private final int k;
    /** Predictions depend only on the two profiles, and schedulers ask about the same pairs again and again. */
    private final Map<PairKey, PairPrediction> cache = new ConcurrentHashMap<>();

    /** Cache key by profile identity: profiles come from one store, and hashing their fields on every call is costly. */
    private record PairKey(JobProfile a, JobProfile b) {
        @Override public boolean equals(Object o) { return o instanceof PairKey k && k.a == a && k.b == b; }

        @Override public int hashCode() { return 31 * System.identityHashCode(a) + System.identityHashCode(b); }
    }

    /** Package-private for tests, which compare the scan with a look at every sample. */
    KernelRegressionModel(double[][] samples, double[] targets, int k) {
        Integer[] order = new Integer[samples.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        java.util.Arrays.sort(order, java.util.Comparator.comparingDouble((Integer i) -> samples[i][0]));
        this.points = new double[samples.length * DIMS];
        this.sampleAt = new int[samples.length];
        for (int j = 0; j < order.length; j++) {
            System.arraycopy(samples[order[j]], 0, points, j * DIMS, DIMS);
            sampleAt[j] = order[j];
        }
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
        PairKey key = new PairKey(a, b);
        PairPrediction known = cache.get(key); // first: a capturing lambda is made for every call that reaches computeIfAbsent
        return known != null ? known : cache.computeIfAbsent(key, x -> compute(a, b));
    }

    private PairPrediction compute(JobProfile a, JobProfile b) {
        double[] ra = regress(features(a, b));
        double[] rb = regress(features(b, a));
        return new PairPrediction(ra[0], rb[0], Math.max(ra[1], rb[1]), "knn");
    }

    /**
     * Returns {prediction, uncertainty} at x. The k nearest samples are those with the least (squared distance,
     * sample index): equal distances are common (a pair measured more than once), and the neighbours, so the
     * prediction, must not depend on the order the samples are scanned in.
     */
    double[] regress(double[] x) {
        double[] bestD = new double[k];
        int[] bestI = new int[k];
        java.util.Arrays.fill(bestD, Double.POSITIVE_INFINITY);
        java.util.Arrays.fill(bestI, Integer.MAX_VALUE);
        double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
        int n = sampleAt.length;
        int hi = firstAtOrAbove(x0), lo = hi - 1;
        while (lo >= 0 || hi < n) {
            double below = lo >= 0 ? x0 - points[lo * DIMS] : Double.POSITIVE_INFINITY;
            double above = hi < n ? points[hi * DIMS] - x0 : Double.POSITIVE_INFINITY;
            double t = Math.min(below, above);
            double worst = bestD[k - 1];
            // every sample further out along the first feature is at least this far: none can be nearer
            if (t * t > worst) break;
            int j = below <= above ? lo-- : hi++;
            int o = j * DIMS;
            t = points[o] - x0; // the terms in the order of a plain sum over the features
            double d = t * t;
            t = points[o + 1] - x1;
            d += t * t;
            t = points[o + 2] - x2;
            d += t * t;
            t = points[o + 3] - x3;
            d += t * t;
            int i = sampleAt[j];
            if (d > worst || (d == worst && i > bestI[k - 1])) continue;
            int at = k - 1;
            while (at > 0 && (bestD[at - 1] > d || (bestD[at - 1] == d && bestI[at - 1] > i))) {
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

    /** The first sorted place whose first feature is at least {@code x0} (n if none). */
    private int firstAtOrAbove(double x0) {
        int lo = 0, hi = sampleAt.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (points[mid * DIMS] < x0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
}
