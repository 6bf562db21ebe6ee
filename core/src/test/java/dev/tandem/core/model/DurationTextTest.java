package dev.tandem.core.model;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationTextTest {
    @Test
    void everyUnitInEveryCommand() {
        assertThat(DurationText.seconds("500ms")).isEqualTo(0.5);
        assertThat(DurationText.seconds("90s")).isEqualTo(90);
        assertThat(DurationText.seconds("90")).isEqualTo(90);
        assertThat(DurationText.seconds("30m")).isEqualTo(1800);
        assertThat(DurationText.seconds("1.5h")).isEqualTo(5400);
        assertThat(DurationText.seconds(" 7D ")).isEqualTo(604_800);
        assertThat(DurationText.millis("250ms")).isEqualTo(250);
        assertThat(DurationText.millis("2m")).isEqualTo(120_000);
        assertThat(DurationText.millis("0")).isZero();
    }

    @Test
    void badTextIsRefusedWithTheFormsItTakes() {
        for (String bad : List.of("", "-5s", "abc", "5x", "ms", "infinityh", "NaN", "5 minutes")) {
            assertThatThrownBy(() -> DurationText.seconds(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + bad + "'").hasMessageContaining("500ms, 90s, 30m, 16h, 7d");
        }
    }

    @Test
    void elapsedTimesAsHoursMinutesSeconds() {
        assertThat(DurationText.hms(0)).isEqualTo("0:00:00");
        assertThat(DurationText.hms(59)).isEqualTo("0:00:59");
        assertThat(DurationText.hms(3_661)).isEqualTo("1:01:01");
        assertThat(DurationText.hms(100 * 3600 + 5)).isEqualTo("100:00:05");
    }

    @Test
    void roughTimesFromNowForPeople() {
        assertThat(DurationText.roughIn(0)).isEqualTo("in 0 s");
        assertThat(DurationText.roughIn(89.4)).isEqualTo("in 89 s");
        assertThat(DurationText.roughIn(90)).isEqualTo("in 2 min");
        assertThat(DurationText.roughIn(5_000)).isEqualTo("in 83 min");
        assertThat(DurationText.roughIn(5_400)).isEqualTo("in 1.5 h");
        assertThat(DurationText.roughIn(47.9 * 3600)).isEqualTo("in 47.9 h");
        assertThat(DurationText.roughIn(3 * 86_400)).isEqualTo("in 3.0 d");
        for (double unknown : new double[] {Double.POSITIVE_INFINITY, Double.NaN, -1}) {
            assertThat(DurationText.roughIn(unknown)).isEqualTo("at a time no one can tell yet");
        }
    }
}
