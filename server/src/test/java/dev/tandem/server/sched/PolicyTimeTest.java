package dev.tandem.server.sched;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The conversions between the daemon's milliseconds and the cluster's seconds the policy reasons in. */
class PolicyTimeTest {
    @Test
    void aRoundsEndIsAskedAtTheFirstMillisecondThePolicySeesItReached() {
        Random rnd = new Random(7);
        for (double scale : new double[] {1, 60, 600, 3600, 0.5, 7.3}) {
            PolicyTime t = new PolicyTime(scale);
            for (int i = 0; i < 20_000; i++) {
                long ms = 1_767_225_600_000L + rnd.nextInt(1_000_000_000);
                // a policy's time a little after a daemon millisecond, as "now + 360 s" comes out
                double end = t.seconds(ms) + rnd.nextDouble() * 1000;
                long due = t.millisAtOrAfter(end);
                assertThat(t.seconds(due)).as("scale %s, end %s", scale, end).isGreaterThanOrEqualTo(end);
                assertThat(t.seconds(due - 1)).as("scale %s, end %s", scale, end).isLessThan(end);
            }
        }
    }

    @Test
    void durationsSpeedsAndShownTimesConvertByTheScale() {
        PolicyTime t = new PolicyTime(60);
        assertThat(t.duration(10_000)).isEqualTo(600);
        assertThat(t.daemonSeconds(600)).isEqualTo(10);
        assertThat(t.perPolicySecond(6_000)).as("iterations per daemon second").isEqualTo(100);
        assertThat(t.millis(t.seconds(1_767_225_600_123L))).isEqualTo(1_767_225_600_123L);
        assertThat(new PolicyTime(1).seconds(1_500)).isCloseTo(1.5, within(1e-12));
        assertThat(t.millisAtOrAfter(Double.POSITIVE_INFINITY)).isEqualTo(Long.MAX_VALUE);
        assertThat(t.millisAtOrAfter(Double.NaN)).isZero();
        assertThatThrownBy(() -> new PolicyTime(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 0.0");
        assertThatThrownBy(() -> new PolicyTime(Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class);
    }
}
