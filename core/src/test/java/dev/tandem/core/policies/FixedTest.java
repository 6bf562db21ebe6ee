package dev.tandem.core.policies;

import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/** Decision reasons print numbers through {@link Fixed}: the same text String.format would give, without its cost. */
class FixedTest {
    @Test
    void roundsPadsAndSignsAsFormatWould() {
        assertThat(Fixed.of(1.625, 2)).isEqualTo("1.63");
        assertThat(Fixed.of(0.05, 2)).isEqualTo("0.05");
        assertThat(Fixed.of(0.001, 3)).isEqualTo("0.001");
        assertThat(Fixed.of(12.3456, 3)).isEqualTo("12.346");
        assertThat(Fixed.of(3, 0)).isEqualTo("3");
        assertThat(Fixed.of(-1.25, 1)).isEqualTo("-1.3");
        assertThat(Fixed.of(-0.004, 2)).isEqualTo("0.00"); // no "-0.00"
        assertThat(Fixed.of(Double.NaN, 2)).isEqualTo("NaN");
        for (double x : new double[] {0, 0.5, 1.2345, 99.999, 1024.0 / 3, 24.0, 7.0 / 9}) {
            for (int d = 0; d <= 6; d++) assertThat(Fixed.of(x, d)).as(x + " to " + d).isEqualTo(String.format(Locale.ROOT, "%." + d + "f", x));
        }
        StringBuilder b = new StringBuilder("memory ");
        Fixed.append(b, 12.34, 1).append('/');
        assertThat(Fixed.append(b, 24, 1).append(" GB").toString()).isEqualTo("memory 12.3/24.0 GB");
    }
}
