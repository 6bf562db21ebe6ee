package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.tandem.core.policies.Fixture.preempted;
import static dev.tandem.core.policies.Fixture.started;
import static org.assertj.core.api.Assertions.assertThat;

class BaselinePoliciesTest {
    @Test
    void fifoBlocksBehindAHeadThatDoesNotFit() {
        Fixture f = new Fixture(1, 4, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.running(f.job("r", w, 2, 100, 0), List.of(0, 1), 100, 0, 1.0);
        f.queued(f.job("big", w, 4, 100, 1)).queued(f.job("small", w, 1, 100, 2));
        assertThat(new FifoPolicy().decide(f.snapshot())).isEmpty();
    }

    @Test
    void fifoStartsInSubmissionOrderOnWholeIdleGpus() {
        Fixture f = new Fixture(2, 2, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.queued(f.job("a", w, 2, 100, 0)).queued(f.job("b", w, 1, 100, 1)).queued(f.job("c", w, 2, 100, 2));
        List<Decision> ds = new FifoPolicy().decide(f.snapshot());
        assertThat(started(ds)).containsExactly("a", "b");
        assertThat(Fixture.start(ds, "a").gpus()).containsExactly(0, 1); // one node for a gang
        assertThat(Fixture.start(ds, "b").gpus()).hasSize(1).doesNotContainAnyElementsOf(List.of(0, 1));
    }

    @Test
    void sjfRunsTheShortestFirstAndBackfills() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.queued(f.job("long", w, 1, 1000, 0)).queued(f.job("wide", w, 4 - 2, 10, 1)).queued(f.job("short", w, 1, 50, 2));
        f.running(f.job("r", w, 1, 100, 0), List.of(0), 100, 0, 1.0);
        List<Decision> ds = new SjfPolicy().decide(f.snapshot());
        // 'wide' is shortest but needs 2 GPUs with 1 idle: skipped; 'short' beats 'long'
        assertThat(started(ds)).containsExactly("short");
    }

    /**
     * A job of unknown length is shown by every world as needing as long as it has run, at least 10 minutes
     * ({@link SchedulerSnapshot#unknownLengthIterations}), and sjf ranks it by that: a newcomer without a length goes
     * before a known 1,000 s job, one that has had an hour of service after it.
     */
    @Test
    void sjfTakesAJobOfUnknownLengthToNeedAsLongAsItHasRun() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.queued(f.job("known", w, 1, 1000, 0));
        f.queue.add(new PendingJob(f.job("new", w, 1, 100_000, 1), 1, 0, SchedulerSnapshot.unknownLengthIterations(0, 1, 10), 0, false, 0));
        assertThat(started(new SjfPolicy().decide(f.snapshot()))).containsExactly("new");
        f.queue.removeLast();
        f.queue.add(new PendingJob(f.job("served", w, 1, 100_000, 1), 1, 3600, SchedulerSnapshot.unknownLengthIterations(3600, 1, 10), 0, false, 0));
        assertThat(started(new SjfPolicy().decide(f.snapshot()))).containsExactly("known");
    }

    /**
     * SJF's walk leaves out gangs too wide for what is left, and only those: a gang refused for its memory does not
     * make the next gang of its size look hopeless; once no node has room for a width, wider and equal gangs are
     * passed over and the narrower jobs behind them still start (the same decisions as trying every job in turn).
     */
    @Test
    void sjfPassesOverOnlyTheGangsThatCannotFit() {
        Fixture f = new Fixture(1, 4, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        WorkloadSignature big = f.profile("Big", 50, 30000);
        f.running(f.job("r", w, 2, 1000, 0), List.of(0, 1), 1000, 0, 1.0);
        f.queued(f.job("big-mem", big, 2, 10, 1)).queued(f.job("pair", w, 2, 20, 2)).queued(f.job("one", w, 1, 30, 3));
        assertThat(started(new SjfPolicy().decide(f.snapshot()))).containsExactly("pair");

        // two nodes with one idle GPU each, gangs on one node only: no 2-GPU gang fits, the single GPUs behind them do
        Fixture g = new Fixture(new Fixture(2, 2, 24576).cluster.withGangsOnOneNode());
        WorkloadSignature v = g.profile("A", 50, 1000);
        g.running(g.job("r0", v, 1, 1000, 0), List.of(0), 1000, 0, 1.0).running(g.job("r2", v, 1, 1000, 0), List.of(2), 1000, 0, 1.0);
        g.queued(g.job("w1", v, 2, 10, 1)).queued(g.job("s1", v, 1, 20, 2)).queued(g.job("w2", v, 2, 30, 3)).queued(g.job("s2", v, 1, 40, 4));
        assertThat(started(new SjfPolicy().decide(g.snapshot()))).containsExactly("s1", "s2");
    }

    @Test
    void srtfPreemptsAJobWithMoreRemainingTime() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.running(f.job("r", w, 1, 1000, 0), List.of(0), 900, 100, 1.0);
        f.queued(f.job("q", w, 1, 50, 10));
        List<Decision> ds = new SrtfPolicy().decide(f.snapshot());
        assertThat(preempted(ds)).containsExactly("r");
        assertThat(started(ds)).containsExactly("q");
    }

    @Test
    void srtfLeavesAShorterRunningJobAlone() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.running(f.job("r", w, 1, 1000, 0), List.of(0), 20, 980, 1.0);
        f.queued(f.job("q", w, 1, 50, 10));
        assertThat(new SrtfPolicy().decide(f.snapshot())).isEmpty();
    }

    @Test
    void tiresiasPrefersLeastAttainedServiceAndIsFifoWithinAQueue() {
        TiresiasPolicy p = new TiresiasPolicy(new double[] {3600}, 8.0);
        assertThat(p.queueOf(0)).isZero();
        assertThat(p.queueOf(3599)).isZero();
        assertThat(p.queueOf(3600)).isEqualTo(1);
        // a threshold reached exactly, up to the rounding of times that differs between worlds, is reached in both
        assertThat(p.queueOf(3600 - 1e-7)).isEqualTo(1);
        assertThat(p.queueOf(3599.99)).isZero();
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.running(f.job("old", w, 1, 10_000, 0), List.of(0), 5000, 5000, 1.0); // demoted to queue 1
        f.queued(f.job("new", w, 1, 10_000, 100));
        List<Decision> ds = p.decide(f.snapshot());
        assertThat(preempted(ds)).containsExactly("old");
        assertThat(started(ds)).containsExactly("new");

        Fixture same = new Fixture(1, 1, 24576);
        WorkloadSignature w2 = same.profile("A", 50, 1000);
        same.running(same.job("first", w2, 1, 10_000, 0), List.of(0), 9000, 1000, 1.0); // still queue 0, submitted earlier
        same.queued(same.job("second", w2, 1, 100, 100));
        assertThat(p.decide(same.snapshot())).isEmpty();
    }

    @Test
    void tiresiasPromotesAStarvingJobAndResetsItsService() {
        TiresiasPolicy p = new TiresiasPolicy(new double[] {3600}, 2.0);
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.now = 100_000;
        f.running(f.job("runner", w, 1, 1e6, 50_000), List.of(0), 1e5, 4000, 1.0); // 4000 GPU-s: queue 1
        Job starved = f.job("starved", w, 1, 1e6, 0);
        f.queued(starved, 10_000, 5000); // ran 5000 s, waited 90000 s > 2 x 5000: promoted to queue 0
        List<Decision> ds = p.decide(f.snapshot());
        assertThat(started(ds)).containsExactly("starved");
        assertThat(preempted(ds)).containsExactly("runner");

        // 60 s later: by its total (5060 GPU-s) it would be queue 1 again, behind nobody but equal to the runner;
        // its service counts from the promotion (60 GPU-s, queue 0), so the runner does not take the GPU back
        Fixture later = new Fixture(1, 1, 24576);
        WorkloadSignature w2 = later.profile("A", 50, 1000);
        later.now = 100_060;
        later.running(later.job("starved", w2, 1, 1e6, 0), List.of(0), 1e5, 5060, 1.0);
        later.queued(later.job("runner", w2, 1, 1e6, 50_000), 100_000, 4000);
        assertThat(p.decide(later.snapshot())).isEmpty();
    }

    @Test
    void tiresiasNeverPreemptsARunningJobForAWaitingOneOfTheSameQueue() {
        // worked example: one GPU; "back" was preempted earlier (200 GPU-s, queue 0, submitted at 0), "front" runs
        // (100 GPU-s, queue 0, submitted at 10). Ranking by submission alone would swap them; Tiresias keeps "front".
        TiresiasPolicy p = new TiresiasPolicy();
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.now = 400;
        f.running(f.job("front", w, 1, 10_000, 10), List.of(0), 9000, 100, 1.0);
        f.queued(f.job("back", w, 1, 10_000, 0), 300, 200);
        assertThat(p.decide(f.snapshot())).isEmpty();
        // a waiting job of a higher queue does preempt: "front" at 3300 GPU-s is in queue 1 (threshold 3250)
        Fixture g = new Fixture(1, 1, 24576);
        WorkloadSignature w2 = g.profile("A", 50, 1000);
        g.now = 4000;
        g.running(g.job("front", w2, 1, 10_000, 10), List.of(0), 6000, 3300, 1.0);
        g.queued(g.job("back", w2, 1, 10_000, 0), 3900, 200);
        List<Decision> ds = p.decide(g.snapshot());
        assertThat(preempted(ds)).containsExactly("front");
        assertThat(started(ds)).containsExactly("back");
    }

    @Test
    void tiresiasWakesUpWhenItsRankingCanNextChangeWithTimeAlone() {
        // worked example, 4 GPUs at t=1000: "a" (1 GPU, 1000 GPU-s, queue 0) and "b" (2 GPUs, 5000 GPU-s, queue 1) run;
        // "d" (ran 600 s, submitted at 100) and "c" (new, submitted at 500) wait in queue 0 and outrank "b", which is
        // suspended. From then on: "a" reaches 3250 GPU-s at 3250; "d" at 1000 + 2650 = 3650; "c" at 1000 + 3250 = 4250;
        // "b" starves at 1000 + 8 x 2500 = 21000. The earliest is "a"'s (a hair early, never late).
        TiresiasPolicy p = new TiresiasPolicy();
        Fixture f = new Fixture(1, 4, 24576);
        WorkloadSignature w = f.profile("A", 50, 1000);
        f.now = 1000;
        f.running(f.job("a", w, 1, 10_000, 0), List.of(0), 9000, 1000, 1.0);
        f.running(f.job("b", w, 2, 10_000, 0), List.of(1, 2), 7500, 5000, 1.0);
        f.queued(f.job("d", w, 1, 10_000, 100), 0, 600);
        f.queued(f.job("c", w, 1, 10_000, 500));
        assertThat(p.wakeUpAt()).as("before its first decision: every scheduling point").isEqualTo(Double.NEGATIVE_INFINITY);
        List<Decision> ds = p.decide(f.snapshot());
        assertThat(preempted(ds)).containsExactly("b");
        assertThat(started(ds)).containsExactlyInAnyOrder("c", "d");
        assertThat(p.wakeUpAt()).isLessThan(3250 - 1e-3).isCloseTo(3250 - 1e-3, org.assertj.core.data.Offset.offset(1e-5));

        // a waiting job that starts to starve first: "e" ran 50 s and waits from 1000, so at 1000 + 8 x 50 = 1400 it
        // is promoted; "b" (2 GPUs, 2000 GPU-s, submitted first, runs ahead in queue 0) reaches 3250 at 1625
        TiresiasPolicy q = new TiresiasPolicy();
        Fixture g = new Fixture(1, 4, 24576);
        WorkloadSignature w2 = g.profile("A", 50, 1000);
        g.now = 1000;
        g.running(g.job("b", w2, 2, 10_000, 0), List.of(1, 2), 7500, 2000, 1.0);
        g.queued(g.job("d", w2, 1, 10_000, 100), 0, 600);
        g.queued(g.job("c", w2, 1, 10_000, 500));
        g.queued(g.job("e", w2, 1, 10_000, 900), 1000, 50);
        List<Decision> gs = q.decide(g.snapshot());
        assertThat(preempted(gs)).isEmpty();
        assertThat(started(gs)).containsExactlyInAnyOrder("c", "d");
        assertThat(q.wakeUpAt()).isLessThan(1400 - 1e-3).isCloseTo(1400 - 1e-3, org.assertj.core.data.Offset.offset(1e-5));

        // nothing waits: nothing can change until a job arrives
        Fixture idle = new Fixture(1, 4, 24576);
        idle.running(idle.job("x", idle.profile("A", 50, 1000), 1, 10_000, 0), List.of(0), 9000, 10, 1.0);
        assertThat(q.decide(idle.snapshot())).isEmpty();
        assertThat(q.wakeUpAt()).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void tiresiasUsesItsSimulatorsQueueThresholds() {
        TiresiasPolicy p = new TiresiasPolicy();
        assertThat(List.of(p.queueOf(0), p.queueOf(3249), p.queueOf(3250), p.queueOf(7199), p.queueOf(7200), p.queueOf(1e9)))
                .containsExactly(0, 0, 1, 1, 2, 2);
    }
}
