package dev.tandem.core.runtime;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class LengthEstimatesTest {
    /** Jobs of 0.5 to 16 h (log-uniform, as the demo draws them) declared through a log-normal error of {@code sigma}. */
    private static LengthEstimates batch(double sigma, int jobs, long seed) {
        LengthEstimates e = new LengthEstimates();
        Random rnd = new Random(seed);
        double[] actual = new double[jobs], declared = new double[jobs];
        for (int i = 0; i < jobs; i++) {
            actual[i] = 1800 * Math.exp(Math.log(32) * rnd.nextDouble());
            declared[i] = actual[i] * Math.exp(sigma * rnd.nextGaussian());
            e.arrived(declared[i]);
        }
        for (int i = 0; i < jobs; i++) e.finished(declared[i], actual[i]);
        return e;
    }

    @Test
    void declarationsAreJudgedByTheirErrorAgainstHowMuchJobsDiffer() {
        // the demo's spread of ln(length) is about 1.0 (ln 32 over sqrt 12); declared, plus sigma^2
        LengthEstimates exact = batch(0, 200, 1), slight = batch(0.25, 200, 1), demoNoise = batch(1, 200, 1);
        assertThat(exact.rmsLogError()).isZero();
        assertThat(exact.trusted()).isTrue();
        assertThat(slight.errorShare()).isBetween(0.03, 0.1);
        assertThat(slight.trusted()).isTrue();
        assertThat(demoNoise.rmsLogError()).isBetween(0.85, 1.15);
        assertThat(demoNoise.errorShare()).isBetween(0.4, 0.6);
        assertThat(demoNoise.trusted()).isFalse();
        // the same error among jobs that differ far more (seconds to weeks, as on Philly: spread about 4.6) hides little
        LengthEstimates wide = new LengthEstimates();
        Random rnd = new Random(2);
        for (int i = 0; i < 500; i++) {
            double actual = 600 * Math.exp(2.15 * rnd.nextGaussian()), declared = actual * Math.exp(rnd.nextGaussian());
            wide.arrived(declared);
            wide.finished(declared, actual);
        }
        assertThat(wide.errorShare()).isBetween(0.12, 0.25);
        assertThat(wide.trusted()).isTrue();
    }

    @Test
    void tooFewJobsTellNothing() {
        LengthEstimates e = new LengthEstimates();
        assertThat(e.trusted()).isTrue();
        assertThat(e.rmsLogError()).isNaN();
        for (int i = 0; i < LengthEstimates.MIN_SAMPLES; i++) e.arrived(1_000 + 100 * i);
        // each ran three times what it declared (ln 3 = 1.10 against a spread of 0.07), but nine jobs are too few
        for (int i = 0; i < LengthEstimates.MIN_SAMPLES - 1; i++) e.finished(1_000, 3_000);
        assertThat(e.trusted()).isTrue();
        e.finished(1_000, 3_000);
        assertThat(e.samples()).isEqualTo(LengthEstimates.MIN_SAMPLES);
        assertThat(e.rmsLogError()).isCloseTo(Math.log(3), within(1e-12));
        assertThat(e.trusted()).isFalse();
    }

    @Test
    void trustIsLostAboveAThirdOfTheSpreadAndRegainedOnlyBelowAQuarter() {
        LengthEstimates e = new LengthEstimates();
        for (int i = 0; i < 1_000; i++) e.arrived(i % 2 == 0 ? 1 : Math.E * Math.E); // ln: 0 and 2, variance 1
        // errors of ln 0.55 (squared 0.3025) are under a third of the spread: trusted
        for (int i = 0; i < LengthEstimates.ERROR_WINDOW; i++) e.finished(1, Math.exp(0.55));
        assertThat(e.errorShare()).isCloseTo(0.3025, within(1e-9));
        assertThat(e.trusted()).isTrue();
        for (int i = 0; i < LengthEstimates.ERROR_WINDOW; i++) e.finished(1, Math.exp(0.6)); // 0.36: lost
        assertThat(e.trusted()).isFalse();
        for (int i = 0; i < LengthEstimates.ERROR_WINDOW; i++) e.finished(1, Math.exp(0.55)); // 0.3025: still lost
        assertThat(e.trusted()).isFalse();
        for (int i = 0; i < LengthEstimates.ERROR_WINDOW; i++) e.finished(1, Math.exp(0.45)); // 0.2025: regained
        assertThat(e.trusted()).isTrue();
        // only the most recent window counts: half of it at 0.36 again gives 0.28, between the bounds: kept
        for (int i = 0; i < LengthEstimates.ERROR_WINDOW / 2; i++) e.finished(1, Math.exp(0.6));
        assertThat(e.errorShare()).isCloseTo((0.2025 + 0.36) / 2, within(1e-9));
        assertThat(e.trusted()).isTrue();
    }

    @Test
    void jobsWithoutADeclaredOrDoneLengthTeachNothing() {
        LengthEstimates e = new LengthEstimates();
        for (double bad : new double[] {Double.NaN, 0, -5, Double.POSITIVE_INFINITY}) {
            e.arrived(bad);
            e.finished(bad, 10);
            e.finished(10, bad);
        }
        assertThat(e.samples()).isZero();
        assertThat(e.errorShare()).isNaN();
        assertThat(e.trusted()).isTrue();
    }
}
