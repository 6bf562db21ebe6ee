package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
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
    void tiresiasUsesItsSimulatorsQueueThresholds() {
        TiresiasPolicy p = new TiresiasPolicy();
        assertThat(List.of(p.queueOf(0), p.queueOf(3249), p.queueOf(3250), p.queueOf(7199), p.queueOf(7200), p.queueOf(1e9)))
                .containsExactly(0, 0, 1, 1, 2, 2);
    }
}
