package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.tandem.core.policies.Fixture.preempted;
import static dev.tandem.core.policies.Fixture.started;
import static org.assertj.core.api.Assertions.assertThat;

class PackingPoliciesTest {
    /** One GPU busy with a job of model A; a queued job of model B waits. */
    private static Fixture oneBusyGpu(double utilA, double utilB, double memA, double memB) {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", utilA, memA);
        WorkloadSignature b = f.profile("B", utilB, memB);
        f.running(f.job("ra", a, 1, 100, 0), List.of(0), 100, 0, Double.NaN);
        f.queued(f.job("qb", b, 1, 100, 1));
        return f;
    }

    @Test
    void fifoPackedPairsOnlyAtOrAboveTheThroughputThreshold() {
        Fixture f = oneBusyGpu(40, 40, 2000, 2000).predict("A", "B", 0.8, 0.7, 0.0);
        List<Decision> ds = new FifoPackedPolicy().decide(f.snapshot());
        assertThat(started(ds)).containsExactly("qb");
        assertThat(ds.get(0).reason()).contains("1.50").contains("ra");

        Fixture g = oneBusyGpu(40, 40, 2000, 2000).predict("A", "B", 0.8, 0.69, 0.0);
        assertThat(new FifoPackedPolicy().decide(g.snapshot())).isEmpty();
    }

    @Test
    void fifoPackedChoosesThePartnerWithTheHighestSum() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 40, 2000), c = f.profile("C", 40, 2000), b = f.profile("B", 40, 2000);
        f.running(f.job("ra", a, 1, 100, 0), List.of(0), 100, 0, Double.NaN);
        f.running(f.job("rc", c, 1, 100, 0), List.of(1), 100, 0, Double.NaN);
        f.queued(f.job("qb", b, 1, 100, 1));
        f.predict("A", "B", 0.8, 0.8, 0).predict("C", "B", 0.95, 0.9, 0);
        assertThat(Fixture.start(new FifoPackedPolicy().decide(f.snapshot()), "qb").gpus()).containsExactly(1);
    }

    @Test
    void packingNeverExceedsMemory() {
        Fixture f = oneBusyGpu(20, 20, 14000, 11000).predict("A", "B", 0.95, 0.95, 0.0);
        assertThat(new FifoPackedPolicy().decide(f.snapshot())).isEmpty();
        assertThat(new GandivaPolicy().decide(f.snapshot())).isEmpty();
        assertThat(new TandemPolicy().decide(f.snapshot())).isEmpty();
        assertThat(new LucidPolicy().decide(f.snapshot())).isEmpty();
    }

    @Test
    void lucidPairsBySharingScoreAndOnlyWhenNoGpuIsIdle() {
        assertThat(LucidPolicy.score(java.util.Optional.empty())).isEqualTo(2);
        // tiny (util 20 -> 0) with jumbo (util 90 -> 2): score sum 2, allowed
        Fixture ok = oneBusyGpu(90, 20, 4000, 2000);
        assertThat(started(new LucidPolicy().decide(ok.snapshot()))).containsExactly("qb");
        // medium (50 -> 1) with jumbo (90 -> 2): sum 3, not allowed
        Fixture no = oneBusyGpu(90, 50, 4000, 2000);
        assertThat(new LucidPolicy().decide(no.snapshot())).isEmpty();
        // indolent: with an idle GPU the queued job goes there, not next to the running one
        Fixture idle = new Fixture(1, 2, 24576);
        WorkloadSignature a = idle.profile("A", 20, 2000);
        idle.running(idle.job("ra", a, 1, 100, 0), List.of(0), 100, 0, Double.NaN).queued(idle.job("qa", a, 1, 100, 1));
        assertThat(Fixture.start(new LucidPolicy().decide(idle.snapshot()), "qa").gpus()).containsExactly(1);
    }

    @Test
    void lucidRespectsItsMemoryCap() {
        Fixture f = oneBusyGpu(20, 20, 9000, 9000);
        assertThat(new LucidPolicy(16 * 1024).decide(f.snapshot())).isEmpty();
        assertThat(started(new LucidPolicy(24 * 1024).decide(f.snapshot()))).containsExactly("qb");
    }

    @Test
    void gandivaPacksOntoTheLeastUtilisedGpuAndUnpacksBadPairs() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature hot = f.profile("Hot", 90, 2000), cool = f.profile("Cool", 30, 2000), q = f.profile("Q", 50, 2000);
        f.running(f.job("h", hot, 1, 100, 0), List.of(0), 100, 0, Double.NaN);
        f.running(f.job("c", cool, 1, 100, 0), List.of(1), 100, 0, Double.NaN);
        f.queued(f.job("q", q, 1, 100, 1));
        GandivaPolicy g = new GandivaPolicy();
        assertThat(Fixture.start(g.decide(f.snapshot()), "q").gpus()).containsExactly(1);

        Fixture bad = new Fixture(1, 1, 24576);
        WorkloadSignature x = bad.profile("X", 50, 2000), y = bad.profile("Y", 50, 2000);
        bad.running(bad.job("old", x, 1, 100, 0), List.of(0), 100, 0, 0.45);
        bad.running.add(new dev.tandem.core.policy.RunningJob(bad.job("new", y, 1, 100, 5), List.of(0), 10, 10, 1000, 0, 0.45));
        bad.queued(bad.job("next", y, 1, 100, 20));
        GandivaPolicy g2 = new GandivaPolicy();
        List<Decision> ds = g2.decide(bad.snapshot());
        assertThat(preempted(ds)).containsExactly("new");
        // the same signature pair is not packed again: 'next' (Y) does not join 'old' (X)
        assertThat(started(ds)).isEmpty();
    }

    @Test
    void policiesNeverRepeatAPairThatCrashedWithOutOfMemory() {
        Fixture f = oneBusyGpu(20, 20, 2000, 2000).predict("A", "B", 0.95, 0.95, 0.0);
        f.oomPairs.add(dev.tandem.core.runtime.OutOfMemoryRule.pairKey(f.queue.get(0).job().signature(), f.running.get(0).job().signature()));
        assertThat(new FifoPackedPolicy().decide(f.snapshot())).isEmpty();
        assertThat(new GandivaPolicy().decide(f.snapshot())).isEmpty();
        assertThat(new TandemPolicy().decide(f.snapshot())).isEmpty();
    }

    /**
     * Gavel's re-packing, worked by hand on 2 GPUs with four 1-GPU jobs submitted at 0, 10, 20, 30 (models A-D):
     * normalised throughput sums C+A 1.6, C+B 1.8, D+A 1.4, D+C 1.7 (threshold 1.5).
     */
    private static Fixture gavelWorld() {
        Fixture f = new Fixture(1, 2, 24576);
        for (String m : List.of("A", "B", "C", "D")) f.profile(m, 40, 2000);
        return f.predict("C", "A", 0.8, 0.8, 0).predict("C", "B", 0.9, 0.9, 0).predict("D", "A", 0.7, 0.7, 0).predict("D", "C", 0.85, 0.85, 0)
                .predict("D", "B", 0.6, 0.6, 0).predict("A", "B", 0.6, 0.6, 0);
    }

    private static Job gavelJob(Fixture f, String model, double submit) {
        return f.job(model.toLowerCase(java.util.Locale.ROOT), new WorkloadSignature(model, "d", 32, false), 1, 10_000, submit);
    }

    @Test
    void gavelPackedGivesTheOldestJobsGpusAndPacksTheRestWithTheirBestFreePartner() {
        // a and b run alone: the oldest two hold both GPUs; c packs with b (1.8 beats 1.6), d finds only a (1.4): waits
        Fixture f = gavelWorld();
        f.running(gavelJob(f, "A", 0), List.of(0), 10_000, 0, Double.NaN);
        f.running(gavelJob(f, "B", 10), List.of(1), 10_000, 0, Double.NaN);
        f.queued(gavelJob(f, "C", 20)).queued(gavelJob(f, "D", 30));
        List<Decision> ds = new GavelPackedPolicy().decide(f.snapshot());
        assertThat(started(ds)).containsExactly("c");
        assertThat(Fixture.start(ds, "c").gpus()).containsExactly(1);
        assertThat(Fixture.start(ds, "c").reason()).contains("packed with b").contains("1.80");
        assertThat(preempted(ds)).isEmpty();
    }

    @Test
    void gavelPackedRepacksWhenAJobEnds() {
        // a and c share GPU 0 and b has just ended, GPU 1 idle, d waits. Rebuilt: a and c are the oldest two and both run
        // alone, so the newer (c) moves to GPU 1; d packs with c (1.7; a gives 1.4) and joins it there. fifo-packed
        // keeps a and c together and starts d alone on GPU 1
        Fixture f = gavelWorld();
        f.running(gavelJob(f, "A", 0), List.of(0), 10_000, 0, Double.NaN);
        f.running(gavelJob(f, "C", 20), List.of(0), 10_000, 0, Double.NaN);
        f.queued(gavelJob(f, "D", 30));
        List<Decision> ds = new GavelPackedPolicy().decide(f.snapshot());
        assertThat(ds).hasSize(2);
        assertThat(ds.get(0)).isInstanceOf(Decision.Migrate.class);
        assertThat(ds.get(0).jobId()).isEqualTo("c");
        assertThat(((Decision.Migrate) ds.get(0)).gpus()).containsExactly(1);
        assertThat(Fixture.start(ds, "d").gpus()).containsExactly(1);
        assertThat(Fixture.start(new FifoPackedPolicy().decide(f.snapshot()), "d").gpus()).containsExactly(1);
        assertThat(new FifoPackedPolicy().decide(f.snapshot())).hasSize(1);
    }

    @Test
    void gavelPackedSuspendsARunningJobTheAllocationLeavesOut() {
        // one GPU: b runs, a (older, suspended earlier) waits; a gets the GPU, b packs with it only if the sum reaches 1.5
        Fixture f = gavelWorld();
        Fixture one = new Fixture(1, 1, 24576);
        for (String m : List.of("A", "B")) one.profile(m, 40, 2000);
        one.predict("A", "B", 0.6, 0.6, 0);
        one.running(gavelJob(one, "B", 10), List.of(0), 10_000, 0, Double.NaN);
        one.queued(gavelJob(one, "A", 0), 50, 500);
        List<Decision> ds = new GavelPackedPolicy().decide(one.snapshot());
        assertThat(preempted(ds)).containsExactly("b");
        assertThat(started(ds)).containsExactly("a");
        assertThat(ds.get(0)).isInstanceOf(Decision.Preempt.class);
        // with a sum of 1.6 the allocation packs b with a: b stays and a joins it
        one.predict("A", "B", 0.8, 0.8, 0);
        List<Decision> packed = new GavelPackedPolicy().decide(one.snapshot());
        assertThat(preempted(packed)).isEmpty();
        assertThat(Fixture.start(packed, "a").gpus()).containsExactly(0);
        assertThat(f.cluster.gpuCount()).isEqualTo(2);
    }

    @Test
    void gavelPackedHoldsARoundsAllocationUntilTheRoundEnds() {
        // t=0: a runs alone on GPU 0, b waits beside idle GPU 1: the first decision allocates and opens a 360 s round
        GavelPackedPolicy gavel = new GavelPackedPolicy();
        assertThat(gavel.decidesInRounds()).isTrue();
        Fixture start = gavelWorld();
        start.running(gavelJob(start, "A", 0), List.of(0), 10_000, 0, Double.NaN).queued(gavelJob(start, "B", 10));
        assertThat(started(gavel.decide(start.snapshot()))).containsExactly("b");
        assertThat(gavel.wakeUpAt()).isEqualTo(360);
        // c arrives inside the round: it would pack with b (1.8), but waits until the round ends; then it does
        java.util.function.DoubleFunction<List<Decision>> cArrivedAsked = now -> {
            Fixture f = gavelWorld();
            f.now = now;
            f.running(gavelJob(f, "A", 0), List.of(0), 10_000, 0, Double.NaN).running(gavelJob(f, "B", 10), List.of(1), 10_000, 0, Double.NaN);
            f.queued(gavelJob(f, "C", 100));
            return gavel.decide(f.snapshot());
        };
        assertThat(cArrivedAsked.apply(100)).isEmpty();
        assertThat(cArrivedAsked.apply(359.99)).isEmpty();
        assertThat(Fixture.start(cArrivedAsked.apply(360), "c").reason()).contains("packed with b");
        assertThat(gavel.wakeUpAt()).isEqualTo(720);
        // with nothing running a round begins at once
        Fixture empty = gavelWorld();
        empty.now = 500;
        empty.queued(gavelJob(empty, "D", 400));
        assertThat(started(gavel.decide(empty.snapshot()))).containsExactly("d");
        assertThat(gavel.wakeUpAt()).isEqualTo(860);
        // without rounds (length 0) c is packed when it arrives, and time alone never asks for a decision
        GavelPackedPolicy everyEvent = new GavelPackedPolicy(1.5, 0);
        assertThat(everyEvent.decidesInRounds()).isFalse();
        Fixture f = gavelWorld();
        f.now = 100;
        f.running(gavelJob(f, "A", 0), List.of(0), 10_000, 0, Double.NaN).running(gavelJob(f, "B", 10), List.of(1), 10_000, 0, Double.NaN);
        f.queued(gavelJob(f, "C", 100));
        assertThat(started(everyEvent.decide(f.snapshot()))).containsExactly("c");
        assertThat(everyEvent.wakeUpAt()).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void gavelPackedTakesItsRoundLengthFromItsNameAndRefusesABadOne() {
        dev.tandem.core.policy.Policy twoMinutes = PolicyCatalog.create("gavel-packed:2m");
        assertThat(twoMinutes.name()).isEqualTo("gavel-packed:2m");
        Fixture f = gavelWorld();
        f.running(gavelJob(f, "A", 0), List.of(0), 10_000, 0, Double.NaN).queued(gavelJob(f, "B", 10));
        assertThat(started(twoMinutes.decide(f.snapshot()))).containsExactly("b");
        assertThat(twoMinutes.wakeUpAt()).isEqualTo(120);
        assertThat(PolicyCatalog.create("gavel-packed:0").decidesInRounds()).isFalse();
        assertThat(PolicyCatalog.create("gavel-packed:0").name()).isEqualTo("gavel-packed:0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PolicyCatalog.create("gavel-packed:soon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("policy 'gavel-packed:soon': the round length 'soon' is not a duration (a number with ms, s, m, h or d, e.g. 500ms, 90s,"
                        + " 30m, 16h, 7d); 0 re-packs at every scheduling point");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PolicyCatalog.create("gavel-packed:-5s")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void gavelPackedLooksAgainForAGuestKindOnceAHostIsTaken() {
        // two A jobs run alone, h1 (20 GB) older than h2 (4 GB), so h1 is their group's oldest free host; x1 (10 GB) does
        // not fit next to h1 and finds nothing; y (2 GB) takes h1, and h2 becomes the oldest free A: x2, of x1's kind,
        // must look again and pack with it (a guest of a kind that found nothing skips only while no host was taken)
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 40, 2000), x = f.profile("X", 40, 2000), y = f.profile("Y", 40, 2000);
        f.predict("X", "A", 0.8, 0.8, 0).predict("Y", "A", 0.8, 0.8, 0).predict("X", "Y", 0.5, 0.5, 0);
        f.running(new Job("h1", "u", 0, 1, a, 100_000, 20_000, 0), List.of(0), 10_000, 0, Double.NaN);
        f.running(new Job("h2", "u", 1, 1, a, 100_000, 4_000, 0), List.of(1), 10_000, 0, Double.NaN);
        f.queued(new Job("x1", "u", 10, 1, x, 100_000, 10_000, 0)).queued(new Job("y", "u", 20, 1, y, 100_000, 2_000, 0))
                .queued(new Job("x2", "u", 30, 1, x, 100_000, 10_000, 0));
        List<Decision> ds = new GavelPackedPolicy().decide(f.snapshot());
        assertThat(started(ds)).containsExactlyInAnyOrder("y", "x2");
        assertThat(Fixture.start(ds, "y").gpus()).containsExactly(0);
        assertThat(Fixture.start(ds, "x2").gpus()).containsExactly(1);
    }
}
