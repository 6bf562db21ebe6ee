package dev.tandem.core.policies;

import java.util.Arrays;

/**
 * Maximum-weight bipartite matching. Exact (the Hungarian algorithm with potentials, O(n^2 m)) up to
 * {@link #EXACT_LIMIT} rows and columns; beyond that a greedy heaviest-edge-first matching (at least half the
 * optimum) keeps decision time bounded on very large clusters.
 *
 * <p>Written here rather than taken from JGraphT on purpose: its exact bipartite matching
 * ({@code MaximumWeightBipartiteMatching}) keeps potentials in {@code BigDecimal} and needs a graph object built per
 * call; in its place (jgrapht-core 1.5.3, 2026-12-07) tandem's Alibaba replay took 2.59-2.72 CPU seconds against
 * 1.91-2.39 s in alternating runs, and its choice among equally heavy matchings differs from this one's, which moved
 * results ({@code ./tandem simulate --trace ../shared/data/alibaba-openb/openb_pod_list_default.csv --trace-format
 * alibaba --cluster 2x8:RTX3090-24GB --policy tandem}). {@code MatchingTest} checks it against brute force.
 */
final class Matching {
    static final int EXACT_LIMIT = 300;

    private Matching() {}

    /**
     * @param w w[i][j] > 0 is the weight of pairing row i with column j; 0 or less means "no edge"
     * @return for each row the matched column, or -1
     */
    static int[] maxWeight(double[][] w) {
        int rows = w.length;
        int cols = rows == 0 ? 0 : w[0].length;
        if (rows == 0 || cols == 0) return filled(rows);
        if (rows > EXACT_LIMIT || cols > EXACT_LIMIT) return greedy(w);
        if (rows <= cols) return hungarian(w, false);
        int[] colToRow = hungarian(transpose(w), true);
        int[] rowToCol = filled(rows);
        for (int j = 0; j < colToRow.length; j++) if (colToRow[j] >= 0) rowToCol[colToRow[j]] = j;
        return rowToCol;
    }

    private static int[] filled(int n) {
        int[] a = new int[n];
        Arrays.fill(a, -1);
        return a;
    }

    private static double[][] transpose(double[][] w) {
        double[][] t = new double[w[0].length][w.length];
        for (int i = 0; i < w.length; i++) for (int j = 0; j < w[0].length; j++) t[j][i] = w[i][j];
        return t;
    }

    /** Rows <= columns. Minimises sum of -w over a full assignment of rows; edges of weight <= 0 are dropped after. */
    private static int[] hungarian(double[][] w, boolean unused) {
        int n = w.length, m = w[0].length;
        double[] u = new double[n + 1], v = new double[m + 1];
        int[] p = new int[m + 1], way = new int[m + 1];
        for (int i = 1; i <= n; i++) {
            p[0] = i;
            int j0 = 0;
            double[] minv = new double[m + 1];
            Arrays.fill(minv, Double.POSITIVE_INFINITY);
            boolean[] used = new boolean[m + 1];
            do {
                used[j0] = true;
                int i0 = p[j0], j1 = 0;
                double delta = Double.POSITIVE_INFINITY;
                for (int j = 1; j <= m; j++) {
                    if (used[j]) continue;
                    double cost = -Math.max(0, w[i0 - 1][j - 1]) - u[i0] - v[j];
                    if (cost < minv[j]) {
                        minv[j] = cost;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
                for (int j = 0; j <= m; j++) {
                    if (used[j]) {
                        u[p[j]] += delta;
                        v[j] -= delta;
                    } else {
                        minv[j] -= delta;
                    }
                }
                j0 = j1;
            } while (p[j0] != 0);
            do {
                int j1 = way[j0];
                p[j0] = p[j1];
                j0 = j1;
            } while (j0 != 0);
        }
        int[] match = filled(n);
        for (int j = 1; j <= m; j++) if (p[j] != 0 && w[p[j] - 1][j - 1] > 0) match[p[j] - 1] = j - 1;
        return match;
    }

    static int[] greedy(double[][] w) {
        int rows = w.length, cols = w[0].length;
        int count = 0;
        for (double[] r : w) for (double x : r) if (x > 0) count++;
        long[] edges = new long[count];
        double[] weights = new double[count];
        Integer[] order = new Integer[count];
        int k = 0;
        for (int i = 0; i < rows; i++) for (int j = 0; j < cols; j++) if (w[i][j] > 0) {
            edges[k] = ((long) i << 32) | j;
            weights[k] = w[i][j];
            order[k] = k;
            k++;
        }
        Arrays.sort(order, (a, b) -> Double.compare(weights[b], weights[a]));
        int[] match = filled(rows);
        boolean[] colUsed = new boolean[cols];
        for (int e : order) {
            int i = (int) (edges[e] >>> 32), j = (int) edges[e];
            if (match[i] < 0 && !colUsed[j]) {
                match[i] = j;
                colUsed[j] = true;
            }
        }
        return match;
    }
}
