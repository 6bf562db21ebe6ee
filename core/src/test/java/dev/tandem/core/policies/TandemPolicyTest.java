package dev.tandem.core.policies;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.tandem.core.policies.Fixture.preempted;
import static dev.tandem.core.policies.Fixture.started;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class TandemPolicyTest {
    private static TandemPolicy.Config cfg(double minSpeed, double minGain, double caution, double starvation) {
        return new TandemPolicy.Config(minSpeed, minGain, caution, 32, starvation, 0.25, Objective.MAKESPAN);
    }

    @Test
    void pairsAQueuedJobWithARunningOneAndExplainsWhy() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 40, 4096), b = f.profile("B", 30, 8192);
        f.running(f.job("r", a, 1, 100, 0), List.of(0), 100, 0, Double.NaN).queued(f.job("q", b, 1, 100, 1));
        f.predict("B", "A", 0.95, 0.88, 0.05);
        List<Decision> ds = new TandemPolicy().decide(f.snapshot());
        assertThat(started(ds)).containsExactly("q");
        assertThat(ds.get(0).reason()).isEqualTo("paired q with r: predicted 1.83x (0.95/0.88 ±0.05, table), memory 12.0/24.0 GB");
    }

    /**
     * The plan made when a was alone ends when a does; b, submitted after it, would share a's GPU at 1.8x. Judged against
     * that plan alone, a (which ran a little slower than its profile says) outlasts all the work and is on the critical
     * path, so it takes no partner and b waits for it; the work submitted since the plan pushes the end back.
     */
    @Test
    void theJobThatSetThePlansEndStillHostsAJobSubmittedAfterThePlan() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 40, 4096), b = f.profile("B", 30, 4096);
        f.predict("B", "A", 1.05, 0.75, 0.05);
        TandemPolicy p = new TandemPolicy();
        Job first = f.job("a", a, 1, 5000, 0);
        assertThat(started(p.decide(f.queued(first).snapshot()))).containsExactly("a"); // and a plan: its 5,000 s are all the work
        f.queue.clear();
        f.now = 10;
        f.running(first, List.of(0), 4995, 10, Double.NaN).queued(f.job("b", b, 1, 1000, 10)); // the plan has 4,990 s left
        List<Decision> ds = p.decide(f.snapshot());
        assertThat(started(ds)).containsExactly("b");
        assertThat(ds.getFirst().reason()).startsWith("paired b with a");
    }

    /**
     * Without a plan (fewer jobs wait than there are GPUs) a job is on the critical path when it outlasts 1.5x the
     * unfinished work per GPU: here (10,000 + 100 + 100) / 2 x 1.5 = 7,650 s. The long job takes no partner, and asked
     * why the waiting job does not join it, the policy says so (the daemon's "why is my job waiting" asks it).
     */
    @Test
    void aHostOnTheCriticalPathTakesNoPartnerAndThePolicySaysWhy() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 40, 4096), b = f.profile("B", 30, 4096), c = f.profile("C", 30, 4096);
        f.predict("B", "A", 0.9, 0.9, 0); // B with C: no prediction, so never shared
        f.running(f.job("long", a, 1, 10_000, 0), List.of(0), 10_000, 0, Double.NaN)
                .running(f.job("short", c, 1, 100, 0), List.of(1), 100, 0, Double.NaN).queued(f.job("q", b, 1, 100, 0));
        TandemPolicy p = new TandemPolicy();
        var s = f.snapshot();
        Job q = s.queue().getFirst().job(), host = s.running().getFirst().job();
        assertThat(p.pairingRefusal(s, q, host, List.of(0))).as("before any decision").isEmpty();
        assertThat(p.decide(s)).isEmpty();
        assertThat(p.pairingRefusal(s, q, host, List.of(0))).hasValue("job long is on the critical path: 10000 s of its work are left, beyond"
                + " the 7650 s by which the rest of the work should end, so a partner's slowdown would delay the end");
        // with less left (the unfinished work is summed at most every 300 s, so the threshold stays) it hosts at the next decision
        f.running.set(0, new RunningJob(host, List.of(0), 0, 0, 7_000 * 10, 3_000, Double.NaN));
        var later = f.snapshot();
        assertThat(started(p.decide(later))).containsExactly("q");
        assertThat(p.pairingRefusal(later, q, host, List.of(0))).isEmpty();
    }

    @Test
    void slowdownBoundIsJudgedOnTheCautiousPrediction() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 40, 4096), b = f.profile("B", 30, 4096);
        f.running(f.job("r", a, 1, 100, 0), List.of(0), 100, 0, Double.NaN).queued(f.job("q", b, 1, 100, 1));
        f.predict("B", "A", 0.65, 0.9, 0.0);
        assertThat(started(new TandemPolicy(cfg(0.6, 0.1, 1.0, 1e9)).decide(f.snapshot()))).containsExactly("q");
        f.predict("B", "A", 0.65, 0.9, 0.1); // 0.65 - 1 x 0.1 < 0.6
        assertThat(new TandemPolicy(cfg(0.6, 0.1, 1.0, 1e9)).decide(f.snapshot())).isEmpty();
        assertThat(started(new TandemPolicy(cfg(0.5, 0.1, 1.0, 1e9)).decide(f.snapshot()))).containsExactly("q");
    }

    @Test
    void doesNotPairWhenTheGainIsTooSmall() {
        TandemPolicy p = new TandemPolicy(cfg(0.3, 0.1, 0.0, 1e9));
        assertThat(p.admissible(new PairPrediction(0.55, 0.54, 0, "t"))).isFalse();
        assertThat(p.admissible(new PairPrediction(0.56, 0.55, 0, "t"))).isTrue();
        assertThat(p.admissible(PairPrediction.unknown("x"))).isFalse();
    }

    @Test
    void staysFifoLikeAtLightLoad() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 10, 1000);
        f.running(f.job("r", a, 1, 100, 0), List.of(0), 100, 0, Double.NaN).queued(f.job("q", a, 1, 100, 1));
        f.predict("A", "A", 1.0, 1.0, 0);
        assertThat(Fixture.start(new TandemPolicy().decide(f.snapshot()), "q").gpus()).containsExactly(1);
    }

    @Test
    void matchingGivesTheScarceGoodPartnerToTheHostThatNeedsIt() {
        // two hosts: H (heavy, pairs well only with L) and M (pairs well with both L and X)
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature h = f.profile("H", 95, 2000), m = f.profile("M", 40, 2000), l = f.profile("L", 15, 2000), x = f.profile("X", 50, 2000);
        f.running(f.job("h", h, 1, 100, 0), List.of(0), 100, 0, Double.NaN);
        f.running(f.job("m", m, 1, 100, 0), List.of(1), 100, 0, Double.NaN);
        f.queued(f.job("l", l, 1, 100, 1)).queued(f.job("x", x, 1, 100, 2));
        f.predict("L", "H", 0.95, 0.85, 0).predict("X", "H", 0.5, 0.5, 0)
                .predict("L", "M", 0.98, 0.95, 0).predict("X", "M", 0.85, 0.85, 0).predict("L", "X", 0.95, 0.9, 0);
        List<Decision> ds = new TandemPolicy(cfg(0.6, 0.1, 0, 1e9)).decide(f.snapshot());
        assertThat(Fixture.start(ds, "l").gpus()).containsExactly(0);
        assertThat(Fixture.start(ds, "x").gpus()).containsExactly(1);
    }

    @Test
    void aStarvingJobBlocksOthersUntilItIsServed() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature heavy = f.profile("Heavy", 99, 20_000), light = f.profile("Light", 10, 1000);
        f.now = 10_000;
        f.running(f.job("r", light, 1, 100, 0), List.of(0), 100, 0, Double.NaN);
        f.queued(f.job("old", heavy, 1, 100, 0), 0, 0).queued(f.job("young", light, 1, 100, 9000), 9000, 0);
        f.predict("Light", "Light", 0.98, 0.98, 0);
        // without a starvation bound the light job would join r; with a bound of 1 h 'old' has waited too long
        assertThat(started(new TandemPolicy(cfg(0.6, 0.1, 0, 1e9)).decide(f.snapshot()))).containsExactly("young");
        assertThat(new TandemPolicy(cfg(0.6, 0.1, 0, 3600)).decide(f.snapshot())).isEmpty();
    }

    @Test
    void splitsAPairWhoseObservedSpeedBreaksTheBound() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 40, 2000), b = f.profile("B", 40, 2000);
        f.running.add(new RunningJob(f.job("older", a, 1, 100, 0), List.of(0), 0, 50, 1000, 0, 0.9));
        f.running.add(new RunningJob(f.job("newer", b, 1, 100, 10), List.of(0), 50, 50, 1000, 0, 0.4));
        List<Decision> ds = new TandemPolicy().decide(f.snapshot());
        assertThat(preempted(ds)).containsExactly("newer");
        assertThat(ds.get(0).reason()).contains("observed 0.90/0.40");
        // a pair that performs as hoped is left alone
        Fixture g = new Fixture(1, 1, 24576);
        WorkloadSignature c = g.profile("A", 40, 2000), d = g.profile("B", 40, 2000);
        g.running.add(new RunningJob(g.job("older", c, 1, 100, 0), List.of(0), 0, 50, 1000, 0, 0.9));
        g.running.add(new RunningJob(g.job("newer", d, 1, 100, 10), List.of(0), 50, 50, 1000, 0, 0.85));
        assertThat(new TandemPolicy().decide(g.snapshot())).isEmpty();
    }

    /**
     * A model that does not learn from measured speeds ({@code --no-online}) keeps predicting a pair well after tandem split
     * it for what was measured: the pair is not formed again (it was, at the next decision, and split again a minute
     * later, hundreds of times in a run), and asked why, the policy says so.
     */
    @Test
    void aPairItSplitIsNotFormedAgainThoughTheModelStillPredictsItWell() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 40, 2000), b = f.profile("B", 40, 2000);
        f.predict("B", "A", 0.95, 0.88, 0.05);
        Job older = f.job("older", a, 1, 100, 0), newer = f.job("newer", b, 1, 100, 10);
        f.running.add(new RunningJob(older, List.of(0), 0, 50, 1000, 0, 0.9));
        f.running.add(new RunningJob(newer, List.of(0), 50, 50, 1000, 0, 0.4));
        TandemPolicy p = new TandemPolicy();
        assertThat(preempted(p.decide(f.snapshot()))).containsExactly("newer");
        f.running.clear();
        f.now = 60;
        f.running(older, List.of(0), 100, 60, Double.NaN).queued(newer);
        var s = f.snapshot();
        assertThat(started(new TandemPolicy().decide(s))).as("a policy that split no pair").containsExactly("newer");
        assertThat(p.decide(s)).isEmpty();
        assertThat(p.pairingRefusal(s, newer, older, List.of(0)))
                .hasValue("a pair of B/d/bs32 and A/d/bs32 was split before: its measured speeds broke the slowdown bound or did not pay for sharing");
    }

    @Test
    void spreadsPairsOutWhenNothingWaitsAndGpusAreIdle() {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 40, 2000);
        f.running.add(new RunningJob(f.job("older", a, 1, 10_000, 0), List.of(0), 0, 0, 50_000, 0, 0.9));
        f.running.add(new RunningJob(f.job("newer", a, 1, 10_000, 0), List.of(0), 100, 100, 50_000, 0, 0.9));
        List<Decision> ds = new TandemPolicy().decide(f.snapshot());
        assertThat(ds).hasSize(1);
        assertThat(ds.get(0)).isInstanceOf(Decision.Migrate.class);
        assertThat(ds.get(0).jobId()).isEqualTo("newer");
        assertThat(((Decision.Migrate) ds.get(0)).gpus()).containsExactly(1);
        // too little work left to pay for the move: stays
        Fixture g = new Fixture(1, 2, 24576);
        WorkloadSignature b = g.profile("A", 40, 2000);
        g.running.add(new RunningJob(g.job("older", b, 1, 10_000, 0), List.of(0), 0, 0, 50_000, 0, 0.9));
        g.running.add(new RunningJob(g.job("newer", b, 1, 10_000, 0), List.of(0), 100, 100, 1000, 0, 0.9)); // 100 s left
        assertThat(new TandemPolicy().decide(g.snapshot())).isEmpty();
    }

    @Test
    void gangsShareOnlyWithGangsOfTheSameSizeOnTheSameGpus() {
        Fixture f = new Fixture(1, 4, 24576);
        WorkloadSignature a = f.profile("A", 30, 2000);
        f.running(f.job("g2", a, 2, 100, 0), List.of(0, 1), 100, 0, Double.NaN);
        f.running(f.job("s1", a, 1, 100, 0), List.of(2), 100, 0, Double.NaN);
        f.running(f.job("s1b", a, 1, 100, 0), List.of(3), 100, 0, Double.NaN);
        f.queued(f.job("q2", a, 2, 100, 1)).queued(f.job("q4", a, 4, 100, 2));
        f.predict("A", "A", 0.95, 0.95, 0);
        List<Decision> ds = new TandemPolicy().decide(f.snapshot());
        assertThat(Fixture.start(ds, "q2").gpus()).containsExactly(0, 1);
        assertThat(started(ds)).doesNotContain("q4");
    }

    @Test
    void gainsWithinABillionthAreTiesThatTheHostsOrderBreaks() {
        // two hosts whose pairs with q differ in the thirteenth digit: rounding noise (the plan's prices differ so between
        // solvers), not a reason to prefer b's GPU; the tie goes to the first host
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 40, 2000), b = f.profile("B", 40, 2000), q = f.profile("Q", 30, 2000);
        f.running(f.job("a", a, 1, 1_000, 0), List.of(0), 1_000, 0, Double.NaN);
        f.running(f.job("b", b, 1, 1_000, 0), List.of(1), 1_000, 0, Double.NaN);
        f.queued(f.job("q", q, 1, 1_000, 1));
        f.predict("Q", "A", 0.9, 0.8, 0).predict("Q", "B", 0.9, 0.8 + 1e-13, 0);
        assertThat(Fixture.start(new TandemPolicy(cfg(0.6, 0.1, 0, 1e9)).decide(f.snapshot()), "q").gpus()).containsExactly(0);
        // a real difference still decides
        f.predict("Q", "B", 0.9, 0.8 + 1e-6, 0);
        assertThat(Fixture.start(new TandemPolicy(cfg(0.6, 0.1, 0, 1e9)).decide(f.snapshot()), "q").gpus()).containsExactly(1);
    }

    @Test
    void theLongerOfTwoEquallyGoodPartnersStartsFirst() {
        // both queued jobs pair equally well with the host; the long one would end the batch alone if it started late
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 40, 2000), s = f.profile("S", 30, 2000), l = f.profile("L", 30, 2000);
        f.running(f.job("r", a, 1, 50_000, 0), List.of(0), 50_000, 0, Double.NaN);
        f.now = 10;
        f.queued(f.job("short", s, 1, 1_000, 0)).queued(f.job("long", l, 1, 40_000, 1)); // short is ahead in the queue
        f.predict("S", "A", 0.9, 0.9, 0).predict("L", "A", 0.9, 0.9, 0).predict("S", "L", 0.9, 0.9, 0);
        assertThat(started(new TandemPolicy(cfg(0.6, 0.1, 0, 1e9)).decide(f.snapshot()))).containsExactly("long");
        // without the urgency term, queue order decides between equals
        assertThat(started(new TandemPolicy(new TandemPolicy.Config(0.6, 0.1, 0, 32, 1e9, 0, Objective.MAKESPAN)).decide(f.snapshot()))).containsExactly("short");
    }

    @Test
    void thePlanKeepsTheWorkThatRidesAlongForTheHostThatPairsWithNothingElse() {
        // Host H pairs only with light work L; host M pairs with L (a bit better) and with X. Many L and X jobs wait,
        // so the LP plans L onto H and X onto M, although L+M alone is the best pair on offer.
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature h = f.profile("H", 95, 2000), m = f.profile("M", 40, 2000), l = f.profile("L", 15, 2000), x = f.profile("X", 50, 2000);
        f.running(f.job("h", h, 1, 20_000, 0), List.of(0), 20_000, 0, Double.NaN);
        f.running(f.job("m", m, 1, 20_000, 0), List.of(1), 20_000, 0, Double.NaN);
        for (int i = 0; i < 6; i++) f.queued(f.job("l" + i, l, 1, 5_000, 0)).queued(f.job("x" + i, x, 1, 5_000, 0));
        f.predict("L", "H", 0.9, 0.9, 0).predict("L", "M", 0.95, 0.95, 0).predict("X", "M", 0.8, 0.8, 0)
                .predict("L", "L", 0.7, 0.7, 0).predict("X", "X", 0.55, 0.55, 0).predict("L", "X", 0.75, 0.6, 0);
        List<Decision> ds = new TandemPolicy(cfg(0.5, 0.1, 0, 1e9)).decide(f.snapshot());
        assertThat(started(ds)).hasSize(2);
        assertThat(ds.stream().filter(d -> ((Decision.Start) d).gpus().equals(List.of(0))).findFirst().orElseThrow().jobId()).startsWith("l");
        assertThat(ds.stream().filter(d -> ((Decision.Start) d).gpus().equals(List.of(1))).findFirst().orElseThrow().jobId()).startsWith("x");
    }

    /** Two 2-GPU nodes: node 0 drains soon (jobs a, b), node 1 late (c, d); light 1-GPU jobs wait behind a gang. */
    private static Fixture gangBehindLightWork(double gangSeconds) {
        Fixture f = new Fixture(2, 2, 24576);
        WorkloadSignature busy = f.profile("Busy", 40, 2000), light = f.profile("Light", 20, 2000), gang = f.profile("Gang", 95, 2000);
        f.running(f.job("a", busy, 1, 1_000, 0), List.of(0), 1_000, 0, Double.NaN);
        f.running(f.job("b", busy, 1, 5_000, 0), List.of(1), 5_000, 0, Double.NaN);
        f.running(f.job("c", busy, 1, 30_000, 0), List.of(2), 30_000, 0, Double.NaN);
        f.running(f.job("d", busy, 1, 30_000, 0), List.of(3), 30_000, 0, Double.NaN);
        f.queued(f.job("g", gang, 2, gangSeconds, 0));
        for (int i = 0; i < 4; i++) f.queued(f.job("s" + i, light, 1, 2_000, 0));
        f.predict("Light", "Busy", 0.9, 0.9, 0).predict("Light", "Light", 0.9, 0.9, 0);
        return f;
    }

    @Test
    void anUrgentGangHoldsBackTheGpusThatDrainSoonest() {
        // makespan objective: with balanced, c and d (30,000 s left, beyond the plan's horizon) are on the critical path and host nobody
        TandemPolicy.Config makespan = TandemPolicy.Config.defaults().withObjective(Objective.MAKESPAN);
        List<Decision> ds = new TandemPolicy(makespan).decide(gangBehindLightWork(20_000).snapshot());
        assertThat(started(ds)).doesNotContain("g").hasSize(2);
        for (Decision d : ds) if (d instanceof Decision.Start st) assertThat(st.gpus()).as(d.toString()).isSubsetOf(2, 3);
        // the hold the policy tells the world of: node 0's GPUs, drained in 5,000 s
        assertThat(ds).filteredOn(d -> d instanceof Decision.Reserve).singleElement()
                .isEqualTo(new Decision.Reserve("g", List.of(0, 1), 5_000, "GPU(s) [0, 1] held for this 2-GPU job: expected free in 83 min;"
                        + " meanwhile only work expected to be done by then may use them"));
        // a short gang can wait for the end: light work joins every GPU
        List<Decision> relaxed = new TandemPolicy(makespan).decide(gangBehindLightWork(2_000).snapshot());
        assertThat(started(relaxed)).hasSize(4);
    }

    @Test
    void aGangOfUnknownLengthThatHasRunLongHoldsGpusAsAnUrgentOneDoes() {
        // the gang above, its length unknown: it has had 40,000 GPU-seconds on its 2 GPUs, so it is expected to need
        // 20,000 s more, as long as the urgent gang of known length, and it holds node 0's GPUs as that one does. The plan
        // counts it at the 10-minute floor: more light work waits, so that the GPUs, not c and d alone, set the plan's end
        // (else nothing is priced and nobody is urgent) and the plan's horizon lets a gang hold GPUs that drain within
        // 5,000 s (a quarter of it). Judged by lengths only, it would be urgent to nobody.
        TandemPolicy.Config makespan = TandemPolicy.Config.defaults().withObjective(Objective.MAKESPAN);
        for (boolean lengthKnown : new boolean[] {true, false}) {
            Fixture f = gangBehindLightWork(20_000);
            PendingJob g = f.queue.removeFirst();
            WorkloadSignature light = f.queue.getFirst().job().signature(); // of the light jobs s0-s3
            for (int i = 0; i < 12; i++) f.queued(f.job("w" + i, light, 1, 10_000, 0));
            f.queue.addFirst(lengthKnown ? g : new PendingJob(g.job(), 0, 40_000, g.remainingIterations(), 1, false, 0));
            List<Decision> ds = new TandemPolicy(makespan).decide(f.snapshot());
            assertThat(started(ds)).as("length known: " + lengthKnown).doesNotContain("g");
            assertThat(ds).as("length known: " + lengthKnown).filteredOn(d -> d instanceof Decision.Reserve)
                    .extracting(Decision::jobId, d -> ((Decision.Reserve) d).gpus()).containsExactly(tuple("g", List.of(0, 1)));
        }
    }

    @Test
    void onlyJobsDoneBeforeTheReservedGpusDrainMayBackfillThem() {
        // node 0: GPU 0 idle, GPU 1 busy for 5,000 s more; node 1 busy for 30,000 s
        Fixture f = new Fixture(2, 2, 24576);
        WorkloadSignature busy = f.profile("Busy", 40, 2000), light = f.profile("Light", 20, 2000), gang = f.profile("Gang", 95, 2000);
        f.running(f.job("b", busy, 1, 5_000, 0), List.of(1), 5_000, 0, Double.NaN);
        f.running(f.job("c", busy, 1, 30_000, 0), List.of(2), 30_000, 0, Double.NaN);
        f.running(f.job("d", busy, 1, 30_000, 0), List.of(3), 30_000, 0, Double.NaN);
        f.queued(f.job("g", gang, 2, 20_000, 0));
        for (int i = 0; i < 3; i++) f.queued(f.job("long" + i, light, 1, 10_000, 0));
        f.queued(f.job("short", light, 1, 1_000, 0));
        f.predict("Light", "Busy", 0.9, 0.9, 0).predict("Light", "Light", 0.9, 0.9, 0);
        List<Decision> ds = new TandemPolicy().decide(f.snapshot());
        Decision.Start shortStart = Fixture.start(ds, "short");
        assertThat(shortStart.gpus()).containsExactly(0);
        assertThat(shortStart.reason()).contains("backfilled on GPU(s) [0] held for job g");
        assertThat(started(ds)).doesNotContain("g");
        // the long jobs pair on node 1 only: none joins b, which would delay the gang
        for (Decision d : ds) if (d instanceof Decision.Start st && !d.jobId().equals("short")) assertThat(st.gpus()).as(d.toString()).isSubsetOf(2, 3);
        assertThat(ds).filteredOn(d -> d instanceof Decision.Reserve).extracting(Decision::jobId).containsExactly("g");
    }

    /**
     * One GPU, one job running: a job of the same workload queues that needs more solo time than the plan's horizon
     * (the plan pools their work as if it could be split), so it is on the critical path and would run alone. It
     * still joins the running job when waiting for the GPU and then running alone ends later than running paired:
     * two runs of one training script submitted together must share a single GPU.
     */
    @Test
    void aJobOnTheCriticalPathJoinsAPartnerWhenWaitingForItsOwnGpuWouldEndLater() {
        // paired, b needs 10,000 / 0.95 = 10,526 s; alone it waits 1,000 s for the GPU and then runs 10,000 s
        assertThat(started(new TandemPolicy().decide(oneGpuCriticalJob(1_000).snapshot()))).containsExactly("b");
        // the GPU is free in 100 s: b waits and runs alone (10,100 s)
        assertThat(started(new TandemPolicy().decide(oneGpuCriticalJob(100).snapshot()))).isEmpty();
    }

    private static Fixture oneGpuCriticalJob(double runningSecondsLeft) {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature w = f.profile("W", 40, 2000);
        f.running(f.job("a", w, 1, runningSecondsLeft, 0), List.of(0), runningSecondsLeft, 0, Double.NaN);
        f.queued(f.job("b", w, 1, 10_000, 0));
        f.predict("W", "W", 0.95, 0.95, 0);
        return f;
    }
}
