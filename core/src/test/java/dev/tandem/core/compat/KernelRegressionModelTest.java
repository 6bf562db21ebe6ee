package dev.tandem.core.compat;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class KernelRegressionModelTest {
    /** The neighbours by a look at every sample in index order: the least (squared distance, index), as the model defines them. */
    private static double[] everySample(double[][] samples, double[] targets, int k, double[] x) {
        double[] bestD = new double[k];
        int[] bestI = new int[k];
        Arrays.fill(bestD, Double.POSITIVE_INFINITY);
        for (int i = 0; i < samples.length; i++) {
            double d = 0;
            for (int j = 0; j < x.length; j++) d += (samples[i][j] - x[j]) * (samples[i][j] - x[j]);
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
            double w = 1 / (Math.sqrt(bestD[i]) + 0.002);
            wsum += w;
            ysum += w * targets[bestI[i]];
        }
        double mean = ysum / wsum, var = 0;
        for (int i = 0; i < k; i++) var += 1 / (Math.sqrt(bestD[i]) + 0.002) * Math.pow(targets[bestI[i]] - mean, 2);
        double spread = Math.sqrt(var / wsum), far = 0.5 * Math.sqrt(bestD[0]);
        return new double[] {UtilSumModel.clamp(mean), Math.sqrt(spread * spread + far * far)};
    }

    @Test
    void theScanOutwardsFindsTheNeighboursOfALookAtEverySampleToTheBit() {
        Random rnd = new Random(7);
        for (int round = 0; round < 200; round++) {
            int n = 1 + rnd.nextInt(300);
            // features on a coarse grid, so that many samples lie at equal distances (pairs measured twice, mirrored
            // samples): which of them are neighbours then decides the prediction
            double[][] samples = new double[n][];
            double[] targets = new double[n];
            for (int i = 0; i < n; i++) {
                samples[i] = new double[] {rnd.nextInt(6) / 5.0, rnd.nextInt(4) / 3.0, rnd.nextInt(3) / 2.0, rnd.nextInt(5) / 4.0};
                targets[i] = rnd.nextDouble();
            }
            int k = 1 + rnd.nextInt(Math.min(n, 12));
            KernelRegressionModel model = new KernelRegressionModel(samples, targets, k);
            for (int q = 0; q < 20; q++) {
                double[] x = rnd.nextBoolean() ? samples[rnd.nextInt(n)].clone()
                        : new double[] {rnd.nextDouble() * 1.2 - 0.1, rnd.nextDouble(), rnd.nextDouble(), rnd.nextInt(5) / 4.0};
                assertThat(model.regress(x)).as("round %d, query %s", round, Arrays.toString(x))
                        .containsExactly(everySample(samples, targets, k, x));
            }
        }
    }
}
