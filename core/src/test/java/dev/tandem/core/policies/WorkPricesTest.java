package dev.tandem.core.policies;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class WorkPricesTest {
    private static WorkPrices prices() {
        return new WorkPrices((s, pair) -> {
            PairPrediction pr = s.predict(pair[0], pair[1]);
            return pr.known() ? WorkPrices.cautiousRates(pr, 0) : null;
        });
    }

    @Test
    void pricesWorkThatRidesAlongBelowWorkThatNeedsAGpu() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 20, 1000), b = f.profile("B", 90, 1000);
        for (int i = 0; i < 10; i++) f.queued(f.job("a" + i, a, 1, 1000, 0)).queued(f.job("b" + i, b, 1, 1000, 0));
        f.predict("A", "B", 0.8, 0.7, 0);
        var p = prices().prices(f.snapshot());
        assertThat(p.get(new WorkPrices.Group(b, 1)).work()).isCloseTo(1.0, within(1e-6));
        assertThat(p.get(new WorkPrices.Group(a, 1)).work()).isCloseTo(0.375, within(1e-6));
    }

    @Test
    void replansOnlyWhenTheWorkDriftsOrUnpricedWorkloadsHoldAPercentOfIt() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 20, 1000), b = f.profile("B", 90, 1000), c = f.profile("C", 50, 1000);
        for (int i = 0; i < 10; i++) f.queued(f.job("a" + i, a, 1, 1000, 0)).queued(f.job("b" + i, b, 1, 1000, 0));
        f.predict("A", "B", 0.8, 0.7, 0);
        WorkPrices w = prices();
        w.prices(f.snapshot());
        f.now += WorkPrices.MIN_REPLAN_SECONDS;
        f.queue.removeFirst(); // 5 % less work: same plan
        w.prices(f.snapshot());
        assertThat(w.solves()).isEqualTo(1);
        f.queue.subList(0, 3).clear(); // 20 % less...
        w.prices(f.snapshot());
        assertThat(w.solves()).as("drift is checked at most every %s s", WorkPrices.CHECK_SECONDS).isEqualTo(1);
        f.now += WorkPrices.CHECK_SECONDS; // ...re-planned at the next check
        w.prices(f.snapshot());
        assertThat(w.solves()).isEqualTo(2);
        f.queued(f.job("c", c, 1, 10, 0)); // a workload the plan does not price, 10 s of 16,010 s of work...
        f.now += WorkPrices.MIN_REPLAN_SECONDS;
        assertThat(w.prices(f.snapshot())).doesNotContainKey(new WorkPrices.Group(c, 1)); // ...does not make a new plan
        assertThat(w.solves()).isEqualTo(2);
        f.queued(f.job("c2", c, 1, 200, 0)); // 1.3 % of the work unpriced...
        assertThat(w.prices(f.snapshot())).doesNotContainKey(new WorkPrices.Group(c, 1)); // ...not again so soon
        f.now += WorkPrices.MIN_REPLAN_SECONDS;
        assertThat(w.prices(f.snapshot())).containsKey(new WorkPrices.Group(c, 1));
        assertThat(w.solves()).isEqualTo(3);
        assertThat(w.horizon(f.now)).isGreaterThan(0);
    }

    /**
     * The two worlds' clocks round differently (the daemon's counts milliseconds from the epoch, the simulator's adds
     * event times from zero), so a round that falls exactly on a check can come out a hair before it in one of them.
     * A check due within a millisecond is due: both re-plan there, or their plans (and decisions) part.
     */
    @Test
    void aCheckDueWithinAMillisecondIsDue() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 20, 1000), b = f.profile("B", 90, 1000);
        for (int i = 0; i < 10; i++) f.queued(f.job("a" + i, a, 1, 1000, 0)).queued(f.job("b" + i, b, 1, 1000, 0));
        f.predict("A", "B", 0.8, 0.7, 0);
        WorkPrices w = prices();
        f.now = 32_328.87;
        w.prices(f.snapshot());
        f.queue.subList(0, 5).clear(); // 25 % less work
        f.now += WorkPrices.MIN_REPLAN_SECONDS - 1e-7;
        w.prices(f.snapshot());
        assertThat(w.solves()).isEqualTo(2);
        f.queue.subList(0, 5).clear(); // less again, but the next check is 300 s on, not 300 s less a millisecond
        f.now += WorkPrices.CHECK_SECONDS - 2e-3;
        w.prices(f.snapshot());
        assertThat(w.solves()).isEqualTo(2);
    }

    @Test
    void jobsWithoutProfileAreNotPlanned() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 20, 1000);
        f.queued(f.job("a", a, 1, 1000, 0));
        f.queued(new dev.tandem.core.model.Job("new", "u", 0, 1, new WorkloadSignature("New", "d", 32, false), 100, 100, 0));
        assertThat(prices().prices(f.snapshot()).keySet()).containsExactly(new WorkPrices.Group(a, 1));
    }

    @Test
    void jobsWithoutALengthCountAsTheirFloorSoTheirGrowingServiceDoesNotLookLikeDrift() {
        // two GPUs run jobs of unknown length; ten wait. Their estimates grow with the service they receive (as long as
        // they have run); the plan counts each at the 600 s floor, so hours of service later it is not re-solved
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 20, 1000), b = f.profile("B", 90, 1000);
        f.predict("A", "B", 0.8, 0.7, 0);
        for (int i = 0; i < 10; i++) f.queue.add(new dev.tandem.core.policy.PendingJob(f.job("q" + i, i % 2 == 0 ? a : b, 1, 1e6, 0), 0, 0, 42, 0, false, i));
        WorkPrices w = prices();
        for (int round = 0; round < 5; round++) {
            f.running.clear();
            double ran = round * 4 * WorkPrices.MIN_REPLAN_SECONDS;
            f.running.add(new dev.tandem.core.policy.RunningJob(f.job("r0", a, 1, 1e6, 0), java.util.List.of(0), 0, 0, 42, ran, Double.NaN, false));
            f.running.add(new dev.tandem.core.policy.RunningJob(f.job("r1", b, 1, 1e6, 0), java.util.List.of(1), 0, 0, 42, ran, Double.NaN, false));
            f.now = ran;
            w.prices(f.snapshot());
        }
        assertThat(w.solves()).isEqualTo(1);
        // counted by their estimates instead, the same rounds re-plan each time (the attained service doubles and more)
        WorkPrices known = prices();
        for (int round = 0; round < 5; round++) {
            f.running.clear();
            f.queue.replaceAll(p -> new dev.tandem.core.policy.PendingJob(p.job(), 0, 0, 42, 0, true, p.submitSeq()));
            double ran = round * 4 * WorkPrices.MIN_REPLAN_SECONDS;
            f.running.add(new dev.tandem.core.policy.RunningJob(f.job("r0", a, 1, 1e6, 0), java.util.List.of(0), 0, 0, 10 * (1e5 + ran), ran, Double.NaN));
            f.running.add(new dev.tandem.core.policy.RunningJob(f.job("r1", b, 1, 1e6, 0), java.util.List.of(1), 0, 0, 10 * (1e5 + ran), ran, Double.NaN));
            f.now = ran;
            known.prices(f.snapshot());
        }
        assertThat(known.solves()).isGreaterThan(1);
    }
}
