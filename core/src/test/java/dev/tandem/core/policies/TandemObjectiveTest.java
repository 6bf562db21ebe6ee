package dev.tandem.core.policies;

import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.model.Job;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.tandem.core.policies.Fixture.preempted;
import static dev.tandem.core.policies.Fixture.started;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The queue rules of tandem's objectives on worked examples small enough to follow by hand (solo speed 10 it/s, so
 * a job's iterations are ten times its solo seconds; pairs that are not in a fixture's table cannot share).
 */
class TandemObjectiveTest {
    private static TandemPolicy policy(Objective o) {
        return new TandemPolicy(TandemPolicy.Config.defaults().withObjective(o));
    }

    /** One idle GPU; three jobs submitted together: 2,500 s, 1,000 s, 2,000 s. No pair can share. */
    private static Fixture threeLengths() {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000), c = f.profile("C", 50, 2000);
        return f.queued(f.job("2500s", a, 1, 2_500, 0)).queued(f.job("1000s", b, 1, 1_000, 0)).queued(f.job("2000s", c, 1, 2_000, 0));
    }

    @Test
    void completionTimeObjectivesStartTheShortestJobAndMakespanTheLongest() {
        // shortest first: JCTs 1,000 + 3,000 + 5,500 = 9,500 s; longest first: 2,500 + 4,500 + 5,500 = 12,500 s
        assertThat(started(policy(Objective.JCT).decide(threeLengths().snapshot()))).containsExactly("1000s");
        assertThat(started(policy(Objective.MAKESPAN).decide(threeLengths().snapshot()))).containsExactly("2500s");
        // the plan's horizon is the 5,500 s of work on one GPU: no job needs half of it, so balanced is shortest first
        assertThat(started(policy(Objective.BALANCED).decide(threeLengths().snapshot()))).containsExactly("1000s");
    }

    @Test
    void withoutLengthsTheLeastAttainedServiceGoesFirst() {
        // three jobs that look alike (same workload, same remaining work): the one that has had the least service wins
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000);
        f.queued(f.job("served", a, 1, 1_000, 0), 0, 5_000).queued(f.job("fresh", a, 1, 1_000, 1), 1, 0)
                .queued(f.job("some", a, 1, 1_000, 2), 2, 100);
        f.now = 10;
        assertThat(started(policy(Objective.JCT).decide(f.snapshot()))).containsExactly("fresh");
    }

    @Test
    void balancedStartsAJobWhoseLatestStartHasComeBeforeShorterOnes() {
        // 12,000 s of work on one GPU: the 10,000 s job needs 83% of the plan's horizon alone, so it must start now
        // for the batch to end by the plan; JCT alone would run it last
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000), c = f.profile("C", 50, 2000);
        f.queued(f.job("short1", a, 1, 1_000, 0)).queued(f.job("long", b, 1, 10_000, 0)).queued(f.job("short2", c, 1, 1_000, 0));
        assertThat(started(policy(Objective.BALANCED).decide(f.snapshot()))).containsExactly("long");
        assertThat(started(policy(Objective.JCT).decide(f.snapshot()))).containsExactly("short1");
    }

    /** One GPU; short1, long and short2 (1,000, 10,000 and 1,000 s) submitted at {@code submit}, asked at {@code now}. */
    private static Fixture shortLongShort(double submit, double now) {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000), c = f.profile("C", 50, 2000);
        f.queued(f.job("short1", a, 1, 1_000, submit), submit, 0).queued(f.job("long", b, 1, 10_000, submit), submit, 0)
                .queued(f.job("short2", c, 1, 1_000, submit), submit, 0);
        f.now = now;
        return f;
    }

    @Test
    void aSteadyStreamPushesLatestStartsOutAndTheyComeBackWhenItStops() {
        // the same 12,000 s backlog as above, but it arrived 1,000 s ago as part of a stream that began at 0 (the job
        // submitted then is the opening backlog, not counted): 12,000 s of work within the plan's 12,000 s horizon is
        // load 1 on one GPU, so the backlog does not drain by that horizon; stretched to its bound, 4 x 12,000 s, the
        // long job needs less than half of it and its latest start is not near: shortest first
        TandemPolicy streaming = policy(Objective.BALANCED);
        Fixture opening = new Fixture(1, 1, 24576);
        opening.queued(opening.job("first", opening.profile("F", 50, 2000), 1, 1_000, 0));
        assertThat(started(streaming.decide(opening.snapshot()))).containsExactly("first");
        assertThat(started(streaming.decide(shortLongShort(11_000, 12_000).snapshot()))).containsExactly("short1");
        // a policy that sees the same backlog as its opening batch starts the long job by its latest start
        assertThat(started(policy(Objective.BALANCED).decide(shortLongShort(11_000, 12_000).snapshot()))).containsExactly("long");
        // once the stream has stopped for a horizon, nothing arrives in the window: load 0, the long job is urgent again
        assertThat(started(streaming.decide(shortLongShort(11_000, 23_500).snapshot()))).containsExactly("long");
    }

    @Test
    void theArrivingLoadStretchesTheHorizonAsABusyPeriod() {
        // 1 GPU; after the opening job at 0, 6,000 s of work arrives over 12,000 s: load 0.5, a 10,000 s horizon lasts 20,000 s
        ArrivalLoad load = new ArrivalLoad();
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000);
        f.queued(f.job("opening", a, 1, 5_000, 0));
        load.observe(f.snapshot());
        for (int i = 1; i <= 6; i++) {
            Fixture g = new Fixture(1, 1, 24576);
            g.profile("A", 50, 2000);
            g.queued(g.job("j" + i, a, 1, 1_000, 2_000.0 * i));
            g.now = 2_000.0 * i;
            load.observe(g.snapshot());
        }
        f.now = 12_000;
        assertThat(load.load(f.snapshot(), 12_000)).isEqualTo(0.5);
        assertThat(load.stretch(f.snapshot(), 10_000)).isEqualTo(10_000 / (1 - 5_000.0 / 10_000)); // 5 of the jobs in the last 10,000 s
        assertThat(load.stretch(f.snapshot(), Double.NaN)).isNaN();
        // a load of 1 (1,000 s of work every 1,000 s): the stretch stops at its bound, 4x
        ArrivalLoad full = new ArrivalLoad();
        full.observe(f.snapshot());
        for (int i = 1; i <= 12; i++) {
            Fixture g = new Fixture(1, 1, 24576);
            g.profile("A", 50, 2000);
            g.queued(g.job("k" + i, a, 1, 1_000, 1_000.0 * i));
            g.now = 1_000.0 * i;
            full.observe(g.snapshot());
        }
        assertThat(full.load(f.snapshot(), 12_000)).isEqualTo(1.0);
        assertThat(full.stretch(f.snapshot(), 10_000)).isEqualTo(4 * 10_000.0);
        // a batch has no load: the opening backlog is not a stream
        ArrivalLoad batch = new ArrivalLoad();
        batch.observe(f.snapshot());
        assertThat(batch.load(f.snapshot(), 12_000)).isZero();
    }

    /** Node of 2 GPUs: GPU 0 idle, GPU 1 busy for 1,500 s more; a 2-GPU gang of 1,000 s and a 1-GPU job of 5,000 s wait since 0. */
    private static Fixture gangAndSingle(double now) {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature busy = f.profile("Busy", 50, 2000), gang = f.profile("Gang", 50, 2000), single = f.profile("Single", 50, 2000);
        f.running(f.job("b", busy, 1, 1_500, 0), List.of(1), 1_500, 0, Double.NaN);
        f.queued(f.job("gang", gang, 2, 1_000, 0), 0, 0).queued(f.job("single", single, 1, 5_000, 0), 0, 0);
        f.now = now;
        return f;
    }

    @Test
    void aGangThatHasWaitedAsLongAsItRunsHoldsGpusDrainingWithinItsWait() {
        // at 500 s the gang has waited less than its 1,000 s: the single job takes the idle GPU (the gang may wait
        // until b and the single job are done, 5,500 s, as FIFO-like backfilling without a reservation would have it)
        assertThat(started(policy(Objective.BALANCED).decide(gangAndSingle(500).snapshot()))).containsExactly("single");
        // at 2,000 s it is overdue: GPU 1 drains within 1,500 s <= its 2,000 s wait, so both GPUs are held for it
        // and the 5,000 s job, which would not be done before they drain, does not backfill
        List<Decision> overdue = policy(Objective.BALANCED).decide(gangAndSingle(2_000).snapshot());
        assertThat(started(overdue)).isEmpty();
        // the policy tells the world of the hold (which shows it to users): the GPUs, and when they should be free
        assertThat(overdue).containsExactly(new Decision.Reserve("gang", List.of(0, 1), 1_500, "GPU(s) [0, 1] held for this 2-GPU job: expected free"
                + " in 25 min; meanwhile only work expected to be done by then may use them"));
        assertThat(policy(Objective.BALANCED).decide(gangAndSingle(500).snapshot())).noneMatch(d -> d instanceof Decision.Reserve);
        // the makespan objective reserves only for gangs the plan calls urgent: this short one is not
        List<Decision> makespan = policy(Objective.MAKESPAN).decide(gangAndSingle(2_000).snapshot());
        assertThat(started(makespan)).containsExactly("single");
        assertThat(makespan).noneMatch(d -> d instanceof Decision.Reserve);
    }

    @Test
    void aHoldIsReissuedAtEveryDecisionWhileItsGangWaitsAndEndsWhenItStarts() {
        TandemPolicy p = policy(Objective.BALANCED);
        assertThat(p.decide(gangAndSingle(2_000).snapshot())).hasOnlyElementsOfType(Decision.Reserve.class).hasSize(1);
        // 1,000 s later the busy GPU has 500 s left: the same hold, its expected free time as of now
        Fixture later = new Fixture(1, 2, 24576);
        WorkloadSignature busy = later.profile("Busy", 50, 2000), gang = later.profile("Gang", 50, 2000), single = later.profile("Single", 50, 2000);
        later.running(later.job("b", busy, 1, 1_500, 0), List.of(1), 500, 1_000, Double.NaN);
        later.queued(later.job("gang", gang, 2, 1_000, 0), 0, 0).queued(later.job("single", single, 1, 5_000, 0), 0, 0);
        later.now = 3_000;
        assertThat(p.decide(later.snapshot())).filteredOn(d -> d instanceof Decision.Reserve)
                .extracting(d -> ((Decision.Reserve) d).readyInSeconds()).containsExactly(500.0);
        // b is done: the gang starts on its GPUs, and no hold is left
        Fixture drained = new Fixture(1, 2, 24576);
        WorkloadSignature gang2 = drained.profile("Gang", 50, 2000), single2 = drained.profile("Single", 50, 2000);
        drained.queued(drained.job("gang", gang2, 2, 1_000, 0), 0, 0).queued(drained.job("single", single2, 1, 5_000, 0), 0, 0);
        drained.now = 3_500;
        List<Decision> ds = p.decide(drained.snapshot());
        assertThat(started(ds)).containsExactly("gang");
        assertThat(ds).noneMatch(d -> d instanceof Decision.Reserve);
    }

    /** One GPU running a 20,000 s job (started at 0); a 1,000 s job that cannot share was submitted at {@code submit}. */
    private static Fixture longRunningShortWaiting(double submit, double now) {
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000);
        f.running.add(new RunningJob(f.job("long", a, 1, 25_000, 0), List.of(0), 0, 0, 20_000 * 10, 5_000, Double.NaN));
        f.queued(f.job("short", b, 1, 1_000, submit), submit, 0);
        f.now = now;
        return f;
    }

    @Test
    void anOverdueShortArrivalSuspendsAMuchLongerJobSubmittedBeforeIt() {
        // submitted at 3,000 s, waited 2,000 s >= its 1,000 s: the long job (20x its length left) is suspended
        List<Decision> ds = policy(Objective.BALANCED).decide(longRunningShortWaiting(3_000, 5_000).snapshot());
        assertThat(preempted(ds)).containsExactly("long");
        assertThat(Fixture.start(ds, "short").gpus()).containsExactly(0);
        assertThat(ds.get(0).reason()).contains("suspended for short");
        assertThat(preempted(policy(Objective.JCT).decide(longRunningShortWaiting(3_000, 5_000).snapshot()))).containsExactly("long");
        // waited only 500 s: not yet worth a restart
        assertThat(policy(Objective.BALANCED).decide(longRunningShortWaiting(4_500, 5_000).snapshot())).isEmpty();
        // submitted together with the long job: the policy chose the order once and does not reverse it
        assertThat(policy(Objective.BALANCED).decide(longRunningShortWaiting(0, 5_000).snapshot())).isEmpty();
        // the makespan objective never suspends for a shorter job
        assertThat(policy(Objective.MAKESPAN).decide(longRunningShortWaiting(3_000, 5_000).snapshot())).isEmpty();
    }

    @Test
    void anOverdueShortJobSuspendsAMuchLongerJobSubmittedAfterItWhileItWaited() {
        // "short" (1,000 s, shares with nothing) submitted at 1,000 s; "long" submitted at 2,000 s took the GPU (short had
        // nowhere to go then, say a partner of a job since ended). At 5,000 s short has waited 4,000 s: overdue, and long
        // has 20x its time left
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000);
        f.running.add(new RunningJob(f.job("long", a, 1, 23_000, 2_000), List.of(0), 2_000, 2_000, 20_000 * 10, 3_000, Double.NaN));
        f.queued(f.job("short", b, 1, 1_000, 1_000), 1_000, 0);
        f.now = 5_000;
        List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
        assertThat(preempted(ds)).containsExactly("long");
        assertThat(Fixture.start(ds, "short").gpus()).containsExactly(0);
    }

    @Test
    void anOverdueGangSuspendsOnlyJobsSubmittedBeforeIt() {
        // the same on one node of two GPUs, for a 2-GPU gang: the single-GPU jobs on them were submitted after it, so it
        // waits (for its reservation); submitted before it, they make room
        for (double longSubmit : new double[] {2_000, 0}) {
            Fixture f = new Fixture(1, 2, 24576);
            WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000);
            for (int g = 0; g < 2; g++) {
                f.running.add(new RunningJob(f.job("long" + g, a, 1, 23_000, longSubmit), List.of(g), 2_000, 2_000, 20_000 * 10, 3_000, Double.NaN));
            }
            f.queued(f.job("gang", b, 2, 1_000, 1_000), 1_000, 0);
            f.now = 5_000;
            List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
            if (longSubmit > 1_000) assertThat(preempted(ds)).as("submitted after the gang").isEmpty();
            else assertThat(preempted(ds)).as("submitted before the gang").containsExactlyInAnyOrder("long0", "long1");
        }
    }

    @Test
    void anOverdueJobMakesRoomBeforeTheMatchingGivesTheRunningJobAPartner() {
        // one GPU running "long" alone; "short" (cannot share with it) is overdue, "partner" (shares with it well) has just
        // come. Matched first, partner would join long, and a GPU with a job that has only just started is no room for
        // short: it would wait behind one partner after another
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000), c = f.profile("C", 50, 2000);
        f.predict("A", "C", 0.9, 0.9, 0.01);
        f.running.add(new RunningJob(f.job("long", a, 1, 25_000, 0), List.of(0), 0, 0, 20_000 * 10, 5_000, Double.NaN));
        f.queued(f.job("short", b, 1, 1_000, 1_000), 1_000, 0);
        f.queued(f.job("partner", c, 1, 2_000, 4_990), 4_990, 0);
        f.now = 5_000;
        List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
        assertThat(preempted(ds)).containsExactly("long");
        assertThat(started(ds)).containsExactly("short");
        // the makespan objective suspends no one: it pairs
        assertThat(started(policy(Objective.MAKESPAN).decide(f.snapshot()))).containsExactly("partner");
    }

    /**
     * {@code nodes} nodes of one GPU, each running a 20,000 s job (started at 0); a 1,000 s job that cannot share was
     * submitted at 3,000 s: overdue from 4,000 s on.
     */
    private static Fixture longJobsEverywhereShortWaiting(int nodes, double now) {
        Fixture f = new Fixture(nodes, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000);
        for (int g = 0; g < nodes; g++) f.running.add(new RunningJob(f.job("long" + g, a, 1, 25_000, 0), List.of(g), 0, 0, 20_000 * 10, 5_000, Double.NaN));
        f.queued(f.job("short", b, 1, 1_000, 3_000), 3_000, 0);
        f.now = now;
        return f;
    }

    @Test
    void onAClusterLargerThanOneLookForRoomCoversDecisionsComeAtMostOnceAMinute() {
        TandemPolicy p = policy(Objective.BALANCED);
        int large = ShortestFirstPreemption.NODES_PER_TRY + 1, small = ShortestFirstPreemption.NODES_PER_TRY;
        assertThat(p.decisionPeriodSeconds(longJobsEverywhereShortWaiting(large, 0).cluster)).isEqualTo(60);
        assertThat(p.decisionPeriodSeconds(longJobsEverywhereShortWaiting(small, 0).cluster)).isZero();
        // every decision looks for room, whatever the cluster: the spacing is what keeps looks apart
        assertThat(p.decide(longJobsEverywhereShortWaiting(large, 3_990).snapshot())).isEmpty();
        List<Decision> ds = p.decide(longJobsEverywhereShortWaiting(large, 4_010).snapshot());
        assertThat(preempted(ds)).hasSize(1);
        assertThat(started(ds)).containsExactly("short");
    }

    @Test
    void overdueJobsTryForRoomShortestFirstSoLongStarvingOnesDoNotUseUpTheRound() {
        // 2 GPUs, each running a job with 50,000 s left. Waiting, in the order the round serves them: four 40,000 s jobs
        // that have waited 6 days (overdue, not yet starving), then "short" (1,000 s, waited 2,000 s: overdue). The long
        // ones find no running job with twice their time left, and four failures end a round's tries; tried shortest
        // first, "short" takes a GPU from a job with 50x its time left (in queue order it waited behind them)
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature r = f.profile("R", 50, 2000), w = f.profile("W", 50, 2000), q = f.profile("Q", 50, 2000);
        f.now = 6 * 86_400;
        f.running.add(new RunningJob(f.job("run0", r, 1, 60_000, 0), List.of(0), 0, 0, 50_000 * 10, 10_000, Double.NaN));
        f.running.add(new RunningJob(f.job("run1", r, 1, 60_000, 0), List.of(1), 0, 0, 50_000 * 10, 10_000, Double.NaN));
        for (int i = 1; i <= 4; i++) f.queued(f.job("starving" + i, w, 1, 40_000, i), i, 0);
        f.queued(f.job("short", q, 1, 1_000, f.now - 2_000), f.now - 2_000, 0);
        List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
        assertThat(started(ds)).containsExactly("short");
        assertThat(preempted(ds)).hasSize(1).allMatch(id -> id.startsWith("run"));
    }

    /**
     * 2 GPUs: "young" started 300 s ago with 4,000 s left, "settled" has run 20,000 s with 6,000 s left; "old" (40,000 s,
     * cannot share) has waited since 0. Neither running job has twice its time left, so as merely overdue it waits.
     */
    private static Fixture starvingBehindShorterJobs(double now) {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000), w = f.profile("W", 50, 2000);
        f.now = now;
        f.running.add(new RunningJob(f.job("young", a, 1, 4_300, now - 300), List.of(0), now - 300, now - 300, 4_000 * 10, 300, Double.NaN));
        f.running.add(new RunningJob(f.job("settled", b, 1, 26_000, now - 20_000), List.of(1), now - 20_000, now - 20_000, 6_000 * 10, 20_000, Double.NaN));
        f.queued(f.job("old", w, 1, 40_000, 0), 0, 0);
        return f;
    }

    @Test
    void aJobAboutToStarveSuspendsAnySuspendableJobTheLeastLeftFirst() {
        // 6 days: overdue (waited more than its 40,000 s) but no running job has 80,000 s left: it waits
        assertThat(policy(Objective.BALANCED).decide(starvingBehindShorterJobs(6 * 86_400).snapshot())).isEmpty();
        // 5 minutes before the 7-day bound (a job counts as starving 10 minutes early, so the round that starts it
        // comes before the bound): it may suspend any job that may be suspended at all, even one just started, and
        // takes the GPU of the one with the least left, which resumes soonest
        List<Decision> ds = policy(Objective.BALANCED).decide(starvingBehindShorterJobs(7 * 86_400 - 300).snapshot());
        assertThat(preempted(ds)).containsExactly("young");
        assertThat(Fixture.start(ds, "old").gpus()).containsExactly(0);
        assertThat(ds.get(0).reason()).contains("past the starvation bound");
        // the makespan objective keeps its own rule: a starving job goes first, but suspends no one
        assertThat(preempted(policy(Objective.MAKESPAN).decide(starvingBehindShorterJobs(7 * 86_400 - 300).snapshot()))).isEmpty();
    }

    @Test
    void aStarvingGangSuspendsTheJobsOnGpusHeldForItAndSpansNodesWhereTheClusterAllowsIt() {
        // 1 node of 2 GPUs running jobs with 1,000 s and 2,000 s left; a 2-GPU gang (3,000 s) has waited almost 7 days.
        // Having waited longer than it runs, it holds the GPUs draining soonest (both) for itself; the held GPUs still
        // run the jobs it waits for, and as it starves it suspends them
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), g = f.profile("G", 50, 2000);
        f.now = 7 * 86_400 - 300;
        f.running(f.job("r0", a, 1, 1_000, f.now - 5_000), List.of(0), 1_000, 4_000, Double.NaN);
        f.running(f.job("r1", a, 1, 2_000, f.now - 5_000), List.of(1), 2_000, 3_000, Double.NaN);
        f.queued(f.job("gang", g, 2, 3_000, 0), 0, 0);
        List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
        assertThat(preempted(ds)).containsExactlyInAnyOrder("r0", "r1");
        assertThat(Fixture.start(ds, "gang").gpus()).containsExactly(0, 1);
        // 2 nodes of 2 GPUs, a 4-GPU gang wider than any node: it takes both nodes
        Fixture w = new Fixture(2, 2, 24576);
        WorkloadSignature b = w.profile("B", 50, 2000), big = w.profile("BIG", 50, 2000);
        w.now = 7 * 86_400;
        for (int i = 0; i < 4; i++) w.running(w.job("r" + i, b, 1, 10_000, w.now - 5_000), List.of(i), 10_000, 5_000, Double.NaN);
        w.queued(w.job("wide", big, 4, 3_000, 0), 0, 0);
        List<Decision> wide = policy(Objective.BALANCED).decide(w.snapshot());
        assertThat(preempted(wide)).containsExactlyInAnyOrder("r0", "r1", "r2", "r3");
        assertThat(Fixture.start(wide, "wide").gpus()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void aStarvingJobSuspendsAJobOnTheCriticalPathOnlyWhereNoOtherRoomIsLeftAndNeverTheOneThatEndsLast() {
        // 3 nodes of 2 GPUs. Node 0: "last" (200,000 s left) and x (1,000 s); node 1: "critical" (150,000 s) and an idle
        // GPU; node 2: y and z (20,000 s each). A 2-GPU gang has waited 7 days. Unfinished work per GPU is
        // 394,000 / 6 = 65,667 s: "last" and "critical" have more than 1.5x that left (the critical path), and "last"
        // ends last whatever happens. Node 1 would suspend one job, node 2 two: the gang takes node 2 all the same
        Fixture f = new Fixture(3, 2, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), g = f.profile("G", 50, 2000);
        f.now = 7 * 86_400;
        f.running(f.job("last", a, 1, 200_000, 0), List.of(0), 200_000, 5_000, Double.NaN);
        f.running(f.job("x", a, 1, 1_000, 0), List.of(1), 1_000, 5_000, Double.NaN);
        f.running(f.job("critical", a, 1, 150_000, 0), List.of(2), 150_000, 5_000, Double.NaN);
        f.running(f.job("y", a, 1, 20_000, 0), List.of(4), 20_000, 5_000, Double.NaN);
        f.running(f.job("z", a, 1, 20_000, 0), List.of(5), 20_000, 5_000, Double.NaN);
        f.queued(f.job("gang", g, 2, 3_000, 0), 0, 0);
        List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
        assertThat(preempted(ds)).containsExactlyInAnyOrder("y", "z");
        assertThat(Fixture.start(ds, "gang").gpus()).containsExactly(4, 5);
        // 1 node of 8 GPUs: "last" (100,000 s), "critical" (90,000 s) and six jobs with 1,000 s left; a 7-GPU gang
        // starves. Work per GPU (196,000 + 10,000) / 8 = 25,750 s: both long jobs are on the critical path, "last"
        // ends last. The only room for 7 GPUs suspends "critical" with the six, never "last"
        Fixture w = new Fixture(1, 8, 24576);
        WorkloadSignature b = w.profile("B", 50, 2000), big = w.profile("BIG", 50, 2000);
        w.now = 7 * 86_400;
        w.running(w.job("last", b, 1, 100_000, 0), List.of(0), 100_000, 5_000, Double.NaN);
        w.running(w.job("critical", b, 1, 90_000, 0), List.of(1), 90_000, 5_000, Double.NaN);
        for (int i = 2; i < 8; i++) w.running(w.job("s" + i, b, 1, 1_000, 0), List.of(i), 1_000, 5_000, Double.NaN);
        w.queued(w.job("wide", big, 7, 1_000, 0), 0, 0);
        List<Decision> wide = policy(Objective.BALANCED).decide(w.snapshot());
        assertThat(preempted(wide)).contains("critical").doesNotContain("last").hasSize(7);
        assertThat(Fixture.start(wide, "wide").gpus()).containsExactly(1, 2, 3, 4, 5, 6, 7);
        // an 8-GPU gang would need "last" too: it waits, holding the GPUs (they drain within the week it has waited)
        w.queue.clear();
        w.queued(w.job("whole", big, 8, 1_000, 0), 0, 0);
        assertThat(policy(Objective.BALANCED).decide(w.snapshot())).singleElement()
                .isInstanceOfSatisfying(Decision.Reserve.class, r -> assertThat(r.readyInSeconds()).isEqualTo(100_000));
    }

    @Test
    void underAShortStarvationBoundJobsTakeTurnsOfAtLeastHalfOfIt() {
        // bound 10 minutes: a job counts as starving from half of it (the 10-minute lead would make every job starve at
        // once, and two jobs on one GPU would suspend each other every round). "runner" started 60 s ago; "waiter"
        // (cannot share) waited 200 s: it waits; 400 s: it suspends the runner
        TandemPolicy.Config d = TandemPolicy.Config.defaults();
        TandemPolicy shortBound = new TandemPolicy(new TandemPolicy.Config(d.minSpeed(), d.minGain(), d.uncertaintyWeight(), d.window(), 600,
                d.urgencyWeight(), Objective.BALANCED));
        for (double waited : new double[] {200, 400}) {
            Fixture f = new Fixture(1, 1, 24576);
            WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000);
            f.now = 10_000;
            f.running.add(new RunningJob(f.job("runner", a, 1, 5_000, 9_000), List.of(0), 9_940, 9_940, 4_000 * 10, 60, Double.NaN));
            f.queued(f.job("waiter", b, 1, 5_000, 9_000), f.now - waited, 0);
            assertThat(preempted(shortBound.decide(f.snapshot()))).as("waited %s s", waited).isEqualTo(waited < 300 ? List.of() : List.of("runner"));
        }
        assertThatThrownBy(() -> new TandemPolicy.Config(d.minSpeed(), d.minGain(), d.uncertaintyWeight(), d.window(), 0, d.urgencyWeight(),
                Objective.BALANCED)).hasMessage("the starvation bound must be positive");
    }

    @Test
    void aStarvingJobThatFindsNoRoomSparesTheRoundsTriesForSmallerOnes() {
        // 1 node of 2 GPUs, both running; 40 starving 2-GPU gangs that need more memory than a GPU has (no room
        // anywhere), then a starving 1-GPU job. Once one gang found no room, no gang as wide and as large can: they do
        // not use up the round's 32 tries, and the 1-GPU job suspends a job
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), huge = f.profile("HUGE", 50, 30_000), small = f.profile("S", 50, 2000);
        f.now = 8 * 86_400;
        f.running(f.job("r0", a, 1, 10_000, 0), List.of(0), 10_000, 5_000, Double.NaN);
        f.running(f.job("r1", a, 1, 20_000, 0), List.of(1), 20_000, 5_000, Double.NaN);
        for (int i = 0; i < 40; i++) f.queued(f.job("gang" + i, huge, 2, 3_000, i), i, 0);
        f.queued(f.job("single", small, 1, 3_000, 100), 100, 0);
        List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
        assertThat(started(ds)).containsExactly("single");
        assertThat(preempted(ds)).containsExactly("r0");
    }

    @Test
    void withoutLengthsAJobIsExpectedToRunAsLongAsItHasRunAndTheLeastServedGoFirst() {
        // one GPU, no job's length known. "old" (submitted at 0) has run 5,000 s; "new" (submitted at 4,300 s, never
        // run) has waited 700 s. Expected: "new" 600 s (the floor), "old" 5,000 s, over twice as much: "new" is overdue
        // (waited 700 >= 600) and "old" is suspended for it, least attained service first
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000);
        f.now = 5_000;
        Job old = f.job("old", a, 1, 1e6, 0);
        f.running.add(new RunningJob(old, List.of(0), 0, 0, 42, 5_000, Double.NaN, false));
        f.queue.add(new PendingJob(f.job("new", b, 1, 1e6, 4_300), 4_300, 0, 42, 0, false, 0));
        var snapshot = f.snapshot();
        assertThat(snapshot.expectedSoloSeconds(snapshot.queue().get(0))).isEqualTo(600);
        assertThat(snapshot.expectedSoloSeconds(snapshot.running().get(0))).isEqualTo(5_000);
        List<Decision> ds = policy(Objective.BALANCED).decide(snapshot);
        assertThat(preempted(ds)).containsExactly("old");
        assertThat(started(ds)).containsExactly("new");
        // "old" has run only 1,000 s: expected 1,000 s, less than twice 600 s: it keeps the GPU
        Fixture g = new Fixture(1, 1, 24576);
        WorkloadSignature a2 = g.profile("A", 50, 2000), b2 = g.profile("B", 50, 2000);
        g.now = 5_000;
        g.running.add(new RunningJob(g.job("old", a2, 1, 1e6, 0), List.of(0), 4_000, 4_000, 42, 1_000, Double.NaN, false));
        g.queue.add(new PendingJob(g.job("new", b2, 1, 1e6, 4_300), 4_300, 0, 42, 0, false, 0));
        assertThat(policy(Objective.BALANCED).decide(g.snapshot())).isEmpty();
        // a known length is taken as it is: 42 iterations at 10/s
        Fixture k = new Fixture(1, 1, 24576);
        WorkloadSignature a3 = k.profile("A", 50, 2000);
        k.queued(k.job("known", a3, 1, 4.2, 0));
        assertThat(k.snapshot().expectedSoloSeconds(k.snapshot().queue().get(0))).isCloseTo(4.2, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void aJobOfUnknownLengthIsSuspendedForOneSubmittedWithItOnceItHasHadTwiceItsService() {
        // one GPU; both submitted at 0, neither length known. "first" has run 5,000 s, "second" has waited as long: the
        // order chosen at 0 was made without lengths, and 5,000 s of service is news (least attained service first).
        // Jobs of known length submitted together keep the order chosen once (anOverdueShortArrival... above)
        Fixture f = new Fixture(1, 1, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000);
        f.now = 5_000;
        f.running.add(new RunningJob(f.job("first", a, 1, 1e6, 0), List.of(0), 0, 0, 42, 5_000, Double.NaN, false));
        f.queue.add(new PendingJob(f.job("second", b, 1, 1e6, 0), 0, 0, 42, 0, false, 1));
        List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
        assertThat(preempted(ds)).containsExactly("first");
        assertThat(started(ds)).containsExactly("second");
    }

    /** Twenty jobs that declared 1,000-2,900 s arrived; each that finished ran {@code factor} times what it declared. */
    private static dev.tandem.core.runtime.LengthEstimates declaredAndRan(dev.tandem.core.runtime.LengthEstimates e, int finished, double factor) {
        for (int i = 0; i < 20; i++) e.arrived(1_000 + 100 * i);
        for (int i = 0; i < finished; i++) e.finished(1_000 + 100 * i, (1_000 + 100 * i) * factor);
        return e;
    }

    /** Declared lengths that proved far off: jobs ran three times what they declared (ln 3 against a spread of 0.1). */
    private static dev.tandem.core.runtime.LengthEstimates provedWrong() {
        return declaredAndRan(new dev.tandem.core.runtime.LengthEstimates(), 20, 3);
    }

    @Test
    void declaredLengthsThatProvedFarOffAreNotTrustedAndTheLeastServedGoFirst() {
        // threeLengths: 2,500 s, 1,000 s, 2,000 s declared, none has run. Trusted: shortest first (1000s). Not trusted:
        // all three look alike (the floor, 600 s), and the queue's order among equals stands (2500s)
        Fixture trusted = threeLengths();
        trusted.lengths = declaredAndRan(new dev.tandem.core.runtime.LengthEstimates(), 20, 1.05);
        assertThat(started(policy(Objective.JCT).decide(trusted.snapshot()))).containsExactly("1000s");
        Fixture wrong = threeLengths();
        wrong.lengths = provedWrong();
        var snapshot = wrong.snapshot();
        assertThat(snapshot.knowsLength(snapshot.queue().get(1))).isFalse();
        assertThat(snapshot.expectedSoloSeconds(snapshot.queue().get(1))).isEqualTo(SchedulerSnapshot.UNKNOWN_LENGTH_FLOOR_SECONDS);
        assertThat(started(policy(Objective.JCT).decide(snapshot))).containsExactly("2500s");
    }

    @Test
    void theQueueOrderIsRebuiltWhenDeclaredLengthsLoseTheirTrust() {
        // the order keeps each waiting job's expected time from round to round (the same job objects): trusted, the
        // shortest declared leads; once the declared lengths proved far off, every job looks alike and the queue's order
        // stands, not the order kept from before
        Fixture f = threeLengths();
        f.lengths = new dev.tandem.core.runtime.LengthEstimates();
        QueueOrder order = new QueueOrder();
        assertThat(order.select(f.snapshot(), Objective.JCT, 10, 1e9, Double.NaN, 0.5)).extracting(PendingJob::id)
                .containsExactly("1000s", "2000s", "2500s");
        declaredAndRan(f.lengths, 20, 3);
        assertThat(order.select(f.snapshot(), Objective.JCT, 10, 1e9, Double.NaN, 0.5)).extracting(PendingJob::id)
                .containsExactly("2500s", "1000s", "2000s");
    }

    @Test
    void theRunningJobThatEndsLastWhateverHappensIsNeverSuspended() {
        // 2 GPUs: "long" has 10,000 s left on GPU 0, "other" 3,000 s on GPU 1, and "short" (1,000 s, submitted at
        // 3,000 s) has waited 2,000 s: overdue. Unfinished work per GPU is (10,000 + 3,000 + 1,000) / 2 = 7,000 s:
        // "long" outlasts it, so it ends last whatever the others do and suspending it would add to the makespan
        // (the critical-path rule alone, 1.5 x 7,000 = 10,500 s, would let it go, and it has the most time left);
        // "other" (3x the short job's time left) is suspended instead
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 50, 2000), b = f.profile("B", 50, 2000), c = f.profile("C", 50, 2000);
        f.running.add(new RunningJob(f.job("long", a, 1, 15_000, 0), List.of(0), 0, 0, 10_000 * 10, 5_000, Double.NaN));
        f.running.add(new RunningJob(f.job("other", c, 1, 8_000, 0), List.of(1), 0, 0, 3_000 * 10, 5_000, Double.NaN));
        f.queued(f.job("short", b, 1, 1_000, 3_000), 3_000, 0);
        f.now = 5_000;
        List<Decision> ds = policy(Objective.BALANCED).decide(f.snapshot());
        assertThat(preempted(ds)).containsExactly("other");
        assertThat(Fixture.start(ds, "short").gpus()).containsExactly(1);
    }

    @Test
    void aJobThatOutlastsAllOtherWorkHostsNobody() {
        // 2 GPUs, short queue (no plan): unfinished work 100,000 + 5,000 + 1,000 s = 53,000 s per GPU; x1.5 = 79,500 s.
        // The 100,000 s job ends after everything else whatever happens: a partner would only delay it.
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature r = f.profile("R", 40, 2000), s = f.profile("S", 40, 2000), q = f.profile("Q", 20, 2000);
        f.running(f.job("critical", r, 1, 100_000, 0), List.of(0), 100_000, 0, Double.NaN);
        f.running(f.job("other", s, 1, 5_000, 0), List.of(1), 5_000, 0, Double.NaN);
        f.queued(f.job("q", q, 1, 1_000, 0));
        f.predict("Q", "R", 0.95, 0.95, 0).predict("Q", "S", 0.9, 0.9, 0);
        assertThat(Fixture.start(policy(Objective.BALANCED).decide(f.snapshot()), "q").gpus()).containsExactly(1);
        // the makespan objective takes the better pair
        assertThat(Fixture.start(policy(Objective.MAKESPAN).decide(f.snapshot()), "q").gpus()).containsExactly(0);
    }

    @Test
    void objectivesParseByNameAndRejectOthersNamingTheChoices() {
        assertThat(Objective.parse(" Balanced ")).isEqualTo(Objective.BALANCED);
        assertThat(Objective.parse("jct")).isEqualTo(Objective.JCT);
        assertThatThrownBy(() -> Objective.parse("fast")).hasMessage("objective must be one of makespan, jct, balanced, got 'fast'");
    }
}
