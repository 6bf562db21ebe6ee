package dev.tandem.core.compat;

import org.apache.commons.statistics.descriptive.Mean;
import org.apache.commons.statistics.descriptive.Quantile;
import org.apache.commons.statistics.descriptive.StandardDeviation;
import org.apache.commons.statistics.distribution.TDistribution;
import org.apache.commons.statistics.ranking.NaturalRanking;
import org.apache.commons.statistics.ranking.TiesStrategy;

/**
 * The statistics tandem reports (the model's errors and rank correlation, sweeps' confidence intervals, quantiles of
 * completion times), through Apache Commons Statistics; Pearson's correlation, which it does not offer, is its
 * defining formula.
 */
public final class Stats {
    private static final NaturalRanking RANKING = new NaturalRanking(TiesStrategy.AVERAGE);
    /** Linear interpolation between the two closest ranks (Hyndman and Fan's method 7, as R's and numpy's default). */
    private static final Quantile QUANTILE = Quantile.withDefaults().with(Quantile.EstimationMethod.HF7).withCopy(true);

    private Stats() {}

    public static double mean(double[] x) {
        return x.length == 0 ? Double.NaN : Mean.of(x).getAsDouble();
    }

    /** Mean absolute error of {@code predicted} against {@code actual}. */
    public static double mae(double[] predicted, double[] actual) {
        Mean m = Mean.create();
        for (int i = 0; i < actual.length; i++) m.accept(Math.abs(predicted[i] - actual[i]));
        return actual.length == 0 ? Double.NaN : m.getAsDouble();
    }

    /** Pearson's correlation coefficient; NaN when either side does not vary. */
    public static double pearson(double[] x, double[] y) {
        double mx = mean(x), my = mean(y), sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
        return sxx == 0 || syy == 0 ? Double.NaN : sxy / Math.sqrt(sxx * syy);
    }

    /** Spearman's rank correlation: Pearson's of the ranks, ties given their average rank. */
    public static double spearman(double[] x, double[] y) {
        return pearson(ranks(x), ranks(y));
    }

    static double[] ranks(double[] v) {
        return RANKING.apply(v);
    }

    /** A mean with the half-width of its 95 % confidence interval (NaN half-width for a single value). */
    public record MeanCi(double mean, double halfWidth) {}

    /** The mean and the half-width of its two-sided 95 % interval from Student's t distribution. */
    public static MeanCi meanCi95(double[] x) {
        int n = x.length;
        double m = mean(x);
        if (n < 2) return new MeanCi(m, Double.NaN);
        double t = TDistribution.of(n - 1).inverseSurvivalProbability(0.025);
        return new MeanCi(m, t * StandardDeviation.of(x).getAsDouble() / Math.sqrt(n));
    }

    /** Quantile q in [0,1] of already sorted values, linear interpolation between the closest ranks. */
    public static double quantileSorted(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        return QUANTILE.evaluate(sorted, q);
    }
}
