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
        // the plan of the first test, plus a group whose jobs have no work left (a row the solver meets without presolve)
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
    void rejectsImpossibleGroups() {
        ConfigurationLp lp = new ConfigurationLp(1);
        assertThatThrownBy(() -> lp.addGroup(-1, 1, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad group");
        assertThatThrownBy(() -> lp.addGroup(1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConfigurationLp(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(lp.solve().state()).isEqualTo("EMPTY");
    }
}
