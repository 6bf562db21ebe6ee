package dev.tandem.core.compat;

import dev.tandem.core.model.JobProfile;

import java.util.List;

/**
 * The transparent baseline: a job's co-located speed is a straight line in the sum of the two jobs' solo GPU
 * utilisation, {@code speed = alpha + beta * (util_a + util_b) / 100}, fitted by least squares to the training
 * pairs. Uncertainty is the residual standard deviation. (On Lucid's data the utilisation sum alone has
 * Pearson r of about -0.7 with the pair's combined speed.)
 */
public final class UtilSumModel implements CompatibilityModel {
    private final double alpha;
    private final double beta;
    private final double residualSd;

    public UtilSumModel(double alpha, double beta, double residualSd) {
        this.alpha = alpha;
        this.beta = beta;
        this.residualSd = residualSd;
    }

    public static UtilSumModel fit(List<PairObservation> training) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int n = 0;
        for (PairObservation o : training) {
            if (!o.a().hasUtilization() || !o.b().hasUtilization()) continue;
            double x = (o.a().gpuUtil() + o.b().gpuUtil()) / 100.0;
            for (double y : new double[] {o.speedA(), o.speedB()}) {
                sx += x; sy += y; sxx += x * x; sxy += x * y; n++;
            }
        }
        if (n < 2) throw new IllegalArgumentException("the utilisation-sum model needs at least one training pair with utilisation");
        double denom = n * sxx - sx * sx;
        double beta = denom == 0 ? 0 : (n * sxy - sx * sy) / denom;
        double alpha = (sy - beta * sx) / n;
        double ss = 0;
        for (PairObservation o : training) {
            if (!o.a().hasUtilization() || !o.b().hasUtilization()) continue;
            double x = (o.a().gpuUtil() + o.b().gpuUtil()) / 100.0;
            ss += Math.pow(o.speedA() - (alpha + beta * x), 2) + Math.pow(o.speedB() - (alpha + beta * x), 2);
        }
        return new UtilSumModel(alpha, beta, Math.sqrt(ss / Math.max(1, n - 2)));
    }

    @Override public String name() { return "util-sum"; }

    @Override public PairPrediction predict(JobProfile a, JobProfile b) {
        if (!a.hasUtilization() || !b.hasUtilization()) return PairPrediction.unknown("no utilisation in profile");
        double s = clamp(alpha + beta * (a.gpuUtil() + b.gpuUtil()) / 100.0);
        return new PairPrediction(s, s, residualSd, "util-sum");
    }

    static double clamp(double s) { return Math.max(0.05, Math.min(1.05, s)); }

    public double alpha() { return alpha; }
    public double beta() { return beta; }
}
