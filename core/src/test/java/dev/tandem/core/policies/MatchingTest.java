package dev.tandem.core.policies;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class MatchingTest {
    private static double total(double[][] w, int[] m) {
        double s = 0;
        for (int i = 0; i < m.length; i++) if (m[i] >= 0) s += w[i][m[i]];
        return s;
    }

    @Test
    void beatsGreedyWhereGreedyIsWrong() {
        double[][] w = {{3, 2}, {2, 0}}; // greedy takes 3 and stops; optimum is 2 + 2
        assertThat(Matching.greedy(w)).containsExactly(0, -1);
        assertThat(Matching.maxWeight(w)).containsExactly(1, 0);
    }

    @Test
    void matchesBruteForceOnRandomRectangularProblems() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int trial = 0; trial < 200; trial++) {
            int rows = 1 + rnd.nextInt(5), cols = 1 + rnd.nextInt(5);
            double[][] w = new double[rows][cols];
            for (double[] r : w) for (int j = 0; j < cols; j++) r[j] = rnd.nextDouble() < 0.3 ? 0 : rnd.nextDouble();
            int[] m = Matching.maxWeight(w);
            boolean[] used = new boolean[cols];
            for (int i = 0; i < rows; i++) {
                if (m[i] < 0) continue;
                assertThat(w[i][m[i]]).isPositive();
                assertThat(used[m[i]]).isFalse();
                used[m[i]] = true;
            }
            assertThat(total(w, m)).isCloseTo(brute(w, 0, new boolean[cols]), org.assertj.core.api.Assertions.within(1e-9));
        }
    }

    private static double brute(double[][] w, int row, boolean[] used) {
        if (row == w.length) return 0;
        double best = brute(w, row + 1, used);
        for (int j = 0; j < used.length; j++) {
            if (used[j] || w[row][j] <= 0) continue;
            used[j] = true;
            best = Math.max(best, w[row][j] + brute(w, row + 1, used));
            used[j] = false;
        }
        return best;
    }
}
