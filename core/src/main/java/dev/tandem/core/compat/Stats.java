package dev.tandem.core.compat;

import java.util.Arrays;

/** Small statistics helpers used by the model evaluation. */
public final class Stats {
    private Stats() {}

    public static double mean(double[] x) {
        return Arrays.stream(x).average().orElse(Double.NaN);
    }

    public static double mae(double[] predicted, double[] actual) {
        double s = 0;
        for (int i = 0; i < actual.length; i++) s += Math.abs(predicted[i] - actual[i]);
        return actual.length == 0 ? Double.NaN : s / actual.length;
    }

    public static double pearson(double[] x, double[] y) {
        double mx = mean(x), my = mean(y), sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
        return sxx == 0 || syy == 0 ? Double.NaN : sxy / Math.sqrt(sxx * syy);
    }

    /** Spearman rank correlation, ties given their average rank. */
    public static double spearman(double[] x, double[] y) {
        return pearson(ranks(x), ranks(y));
    }

    static double[] ranks(double[] v) {
        Integer[] idx = new Integer[v.length];
        for (int i = 0; i < v.length; i++) idx[i] = i;
        Arrays.sort(idx, (a, b) -> Double.compare(v[a], v[b]));
        double[] r = new double[v.length];
        int i = 0;
        while (i < v.length) {
            int j = i;
            while (j + 1 < v.length && v[idx[j + 1]] == v[idx[i]]) j++;
            double avg = (i + j) / 2.0 + 1;
            for (int k = i; k <= j; k++) r[idx[k]] = avg;
            i = j + 1;
        }
        return r;
    }

    /** A mean with the half-width of its 95 % confidence interval (NaN half-width for a single value). */
    public record MeanCi(double mean, double halfWidth) {}

    /** Two-sided 95 % Student's t quantiles for 1..30 degrees of freedom; 1.96 beyond. */
    private static final double[] T95 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
            2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

    public static MeanCi meanCi95(double[] x) {
        int n = x.length;
        double m = mean(x);
        if (n < 2) return new MeanCi(m, Double.NaN);
        double ss = 0;
        for (double v : x) ss += (v - m) * (v - m);
        double sd = Math.sqrt(ss / (n - 1));
        double t = n - 1 <= T95.length ? T95[n - 2] : 1.96;
        return new MeanCi(m, t * sd / Math.sqrt(n));
    }

    /** Quantile q in [0,1] of already sorted values, linear interpolation. */
    public static double quantileSorted(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }
}
