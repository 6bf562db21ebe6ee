package dev.tandem.core.plan;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ConfigurationLpTest {
    @Test
    void pairsTheWorkThatRidesAlongAndPricesItBelowAGpu() {
        // A and B: 10 s of work each (10 jobs, so no job is the bottleneck), 2 GPUs; together A runs at 0.8, B at 0.7.
        // Optimum: run the pair until A is done (12.5 s), B's remaining 1.25 s alone: M = (12.5 + 1.25) / 2.
        ConfigurationLp lp = new ConfigurationLp(2);
        int a = lp.addGroup(10, 10, 1), b = lp.addGroup(10, 10, 1);
        lp.addPair(a, b, 0.8, 0.7);
        ConfigurationLp.Solution s = lp.solve();
        assertThat(s.makespanS()).isCloseTo(6.875, within(1e-6));
        assertThat(s.pairTimes()[0]).isCloseTo(12.5, within(1e-6));
        // B's work needs a GPU-second per second; A's costs only what the pair leaves after B: (1 - 0.7) / 0.8
        assertThat(s.workPrice()[b]).isCloseTo(1.0, within(1e-6));
        assertThat(s.workPrice()[a]).isCloseTo(0.375, within(1e-6));
        // the pair in the optimum has reduced cost zero
        assertThat(0.8 * s.workPrice()[a] + 0.7 * s.workPrice()[b] - 1).isCloseTo(0, within(1e-6));
        assertThat(s.configurations()).isEqualTo(3);
    }

    @Test
    void aGroupWithNoWorkLeftChangesNeitherThePlanNorThePrices() {
        // the plan of the first test, plus a group whose jobs have no work left (it gets no work row)
        ConfigurationLp lp = new ConfigurationLp(2);
        int a = lp.addGroup(10, 10, 1), done = lp.addGroup(0, 3, 1), b = lp.addGroup(10, 10, 1);
        lp.addPair(a, b, 0.8, 0.7);
        lp.addPair(a, done, 0.9, 0.9);
        ConfigurationLp.Solution s = lp.solve();
        assertThat(s.makespanS()).isCloseTo(6.875, within(1e-6));
        assertThat(s.workPrice()[b]).isCloseTo(1.0, within(1e-6));
        assertThat(s.workPrice()[a]).isCloseTo(0.375, within(1e-6));
        assertThat(s.workPrice()[done]).isCloseTo(0.0, within(1e-9));
        assertThat(s.pairTimes()[1]).isCloseTo(0.0, within(1e-6));
    }

    @Test
    void aLongJobSetsTheMakespanAndTheGpusAreThenFree() {
        // one job of 100 s on 4 GPUs: the makespan is the job, the GPU capacity constraint is slack, so no GPU price
        ConfigurationLp lp = new ConfigurationLp(4);
        lp.addGroup(100, 1, 1);
        ConfigurationLp.Solution s = lp.solve();
        assertThat(s.makespanS()).isCloseTo(100, within(1e-6));
        assertThat(s.priced()).isFalse();
    }

    @Test
    void pairsThatGainNothingOrMixGangSizesAreLeftOut() {
        ConfigurationLp lp = new ConfigurationLp(8);
        int a = lp.addGroup(10, 2, 1), b = lp.addGroup(10, 2, 1), g = lp.addGroup(10, 2, 2), single = lp.addGroup(10, 1, 1);
        lp.addPair(a, b, 0.5, 0.5);       // sums to 1: taking turns does as well
        lp.addPair(a, g, 0.9, 0.9);       // 1 GPU with 2 GPUs
        lp.addPair(single, single, 0.9, 0.9); // one job cannot pair with itself
        assertThat(lp.configurations()).isEqualTo(4);
        lp.addPair(a, a, 0.9, 0.9);
        assertThat(lp.configurations()).isEqualTo(5);
    }

    @Test
    void columnGenerationReachesTheOptimumOfEveryPair() {
        // 40 groups, every pair allowed at random rates: the first programme holds each group's best pair only, so the
        // optimum needs pairs the generation must find. Certificate: under the prices returned, no pair (in the programme
        // or not) has a positive reduced cost, and the makespan is that of the programme solved with every pair from the
        // start.
        for (long seed = 1; seed <= 5; seed++) {
            java.util.Random r = new java.util.Random(seed);
            int n = 40;
            double[][] rates = new double[n * n][];
            ConfigurationLp generated = new ConfigurationLp(16), whole = new ConfigurationLp(16); // GPU-bound: priced
            for (int g = 0; g < n; g++) {
                double work = 3600.0 * (1 + r.nextInt(50));
                int count = 2 + r.nextInt(30);
                generated.addGroup(work, count, 1);
                whole.addGroup(work, count, 1);
            }
            java.util.List<int[]> pairs = new java.util.ArrayList<>();
            for (int a = 0; a < n; a++) {
                for (int b = a; b < n; b++) {
                    double ra = 0.3 + 0.65 * r.nextDouble(), rb = 0.3 + 0.65 * r.nextDouble();
                    if (generated.addPair(a, b, ra, rb)) {
                        whole.addPair(a, b, ra, rb, true);
                        pairs.add(new int[] {a, b});
                        rates[pairs.size() - 1] = new double[] {ra, rb};
                    }
                }
            }
            ConfigurationLp.Solution g = generated.solve(), w = whole.solve();
            assertThat(g.priced()).isTrue();
            assertThat(g.makespanS()).isCloseTo(w.makespanS(), within(1e-6 * w.makespanS()));
            double[] pi = g.workPrice(), sigma = g.slotPrice();
            for (int i = 0; i < pairs.size(); i++) {
                int a = pairs.get(i)[0], b = pairs.get(i)[1];
                double gain = a == b ? pi[a] * (rates[i][0] + rates[i][1]) - 2 * sigma[a] : pi[a] * rates[i][0] + pi[b] * rates[i][1] - sigma[a] - sigma[b];
                assertThat(gain - 1).as("reduced cost of pair %d-%d, seed %d", a, b, seed).isLessThan(1e-6);
            }
            long used = java.util.Arrays.stream(g.pairTimes()).filter(t -> t > 0).count();
            assertThat(used).as("pairs in the optimal mix").isGreaterThan(n / 2); // more than the first programme's best pairs could give
        }
    }

    @Test
    void rejectsImpossibleGroups() {
        ConfigurationLp lp = new ConfigurationLp(1);
        assertThatThrownBy(() -> lp.addGroup(-1, 1, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad group");
        assertThatThrownBy(() -> lp.addGroup(1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConfigurationLp(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(lp.solve().state()).isEqualTo("EMPTY");
    }
}
