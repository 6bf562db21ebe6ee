package dev.tandem.core.compat;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CompatibilityModelsTest {
    private static JobProfile p(String m, double util, double mutil) {
        return JobProfile.basic(new WorkloadSignature(m, "d", 32, false), 10, util, mutil, 1000);
    }

    @Test
    void utilSumFitRecoversTheLine() {
        List<PairObservation> obs = new ArrayList<>();
        for (int u = 10; u <= 90; u += 10) {
            double s = 1.2 - 0.4 * (u + 20) / 100.0;
            obs.add(new PairObservation(p("A" + u, u, 10), p("B", 20, 10), s, s));
        }
        UtilSumModel m = UtilSumModel.fit(obs);
        assertThat(m.alpha()).isCloseTo(1.2, within(1e-9));
        assertThat(m.beta()).isCloseTo(-0.4, within(1e-9));
        assertThat(m.predict(p("X", 50, 0), p("Y", 30, 0)).speedA()).isCloseTo(0.88, within(1e-9));
    }

    @Test
    void knnReproducesTrainingPointsAndGrowsUncertainFarFromThem() {
        List<PairObservation> obs = List.of(
                new PairObservation(p("A", 20, 10), p("B", 30, 10), 0.95, 0.9),
                new PairObservation(p("C", 90, 70), p("D", 90, 70), 0.5, 0.55));
        KernelRegressionModel m = KernelRegressionModel.fit(obs, 1);
        PairPrediction near = m.predict(p("A2", 20, 10), p("B2", 30, 10));
        assertThat(near.speedA()).isCloseTo(0.95, within(1e-9));
        assertThat(near.speedB()).isCloseTo(0.9, within(1e-9));
        PairPrediction far = m.predict(p("E", 55, 40), p("F", 60, 40));
        assertThat(far.uncertainty()).isGreaterThan(near.uncertainty());
        assertThat(m.predict(JobProfile.basic(new WorkloadSignature("G", "", 0, false), 1, Double.NaN, Double.NaN, Double.NaN), p("B", 30, 10)).known()).isFalse();
    }

    @Test
    void onlineCorrectionReplacesThePredictionWithWhatWasSeen() {
        JobProfile a = p("A", 20, 10), b = p("B", 30, 10);
        CompatibilityModel base = new CompatibilityModel() {
            @Override public String name() { return "const"; }
            @Override public PairPrediction predict(JobProfile x, JobProfile y) { return new PairPrediction(0.9, 0.9, 0.1, "const"); }
        };
        OnlineCorrectedModel m = new OnlineCorrectedModel(base);
        assertThat(m.predict(a, b).basis()).isEqualTo("const");
        m.observe(a.signature(), b.signature(), 1, 0.5, 0.6);
        assertThat(m.predict(a, b).speedA()).isEqualTo(0.5);
        assertThat(m.predict(b, a).speedA()).isEqualTo(0.6);
        m.observe(a.signature(), b.signature(), 1, 0.7, 0.6);
        assertThat(m.predict(a, b, 4).basis()).isEqualTo("const"); // a gang pair is a different observation
        assertThat(m.predict(a, b).speedA()).isCloseTo(0.6, within(1e-12)); // smoothed
        assertThat(m.predict(a, b).basis()).isEqualTo("observed");
    }

    @Test
    void measuredModelLooksUpByGangSize() {
        JobProfile a = p("A", 20, 10), b = p("B", 30, 10);
        MeasuredPairModel m = new MeasuredPairModel(List.of(new PairObservation(a, b, 1, 0.9, 0.8), new PairObservation(a, b, 4, 0, 0)), null);
        assertThat(m.predict(b, a).speedA()).isEqualTo(0.8);
        assertThat(m.predict(a, b, 4).combined()).isZero();
        assertThat(m.predict(a, b, 2).known()).isFalse();
    }

    @Test
    void memoryRuleChargesTheMarginPerJob() {
        MemoryRule r = new MemoryRule(512);
        assertThat(r.fits(24576, 12000, 11552)).isTrue();
        assertThat(r.fits(24576, 12000, 11553)).isFalse();
    }

    @Test
    void spearmanHandlesTies() {
        assertThat(Stats.spearman(new double[] {1, 2, 3, 4}, new double[] {10, 20, 30, 40})).isCloseTo(1.0, within(1e-12));
        assertThat(Stats.spearman(new double[] {1, 2, 3, 4}, new double[] {4, 3, 2, 1})).isCloseTo(-1.0, within(1e-12));
        assertThat(Stats.ranks(new double[] {5, 1, 5})).containsExactly(2.5, 1.0, 2.5);
        assertThat(Stats.quantileSorted(new double[] {1, 2, 3, 4, 5}, 0.5)).isEqualTo(3.0);
        double[] sorted = {1, 2, 3, 4, 5};
        assertThat(Stats.quantileSorted(sorted, 0.99)).isCloseTo(4.96, within(1e-12)); // between the two highest ranks
        assertThat(Stats.quantileSorted(sorted, 0.5)).isEqualTo(3.0); // the values are left as they were
        assertThat(sorted).containsExactly(1, 2, 3, 4, 5);
        assertThat(Stats.mae(new double[] {1, 2}, new double[] {2, 4})).isEqualTo(1.5);
    }
}
