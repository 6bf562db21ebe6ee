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

    /** Quantile q in [0,1] of already sorted values, linear interpolation. */
    public static double quantileSorted(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }
}
