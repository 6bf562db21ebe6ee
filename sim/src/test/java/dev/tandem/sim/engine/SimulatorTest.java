package dev.tandem.sim.engine;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policies.FifoPolicy;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.data.MeasuredPair;
import dev.tandem.data.truth.ContentionFallback;
import dev.tandem.data.truth.MeasuredTruth;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class SimulatorTest {
    static final WorkloadSignature A = new WorkloadSignature("A", "d", 32, false);
    static final WorkloadSignature B = new WorkloadSignature("B", "d", 32, false);
    static final SimConfig PLAIN = new SimConfig(0, 60, 30, 0, new MemoryRule(0));

    static ProfileStore profiles(double memA, double memB) {
        return new ProfileStore(List.of(JobProfile.basic(A, 100, 50, 20, memA), JobProfile.basic(B, 50, 40, 20, memB)));
    }

    static MeasuredTruth truth(double sa, double sb) {
        return new MeasuredTruth("test", List.of(new MeasuredPair(A, B, 1, sa, sb, Double.NaN, false)), ContentionFallback.standard());
    }

    /** Starts every queued job on GPU 0 (co-locating when one already runs there). */
    static final class AllOnGpu0 implements Policy {
        @Override public String name() { return "all-on-gpu0"; }

        @Override public List<Decision> decide(SchedulerSnapshot s) {
            List<Decision> out = new ArrayList<>();
            var here = occupantsByGpu(s).getOrDefault(0, List.of());
            int free = 2 - here.size();
            for (var p : s.queue()) {
                if (here.stream().anyMatch(r -> s.crashedTogether(p.job(), r.job()))) continue;
                if (free-- > 0) out.add(new Decision.Start(p.id(), List.of(0), "test"));
            }
            return out;
        }
    }

    @Test
    void handComputedCoLocationToTheSecond() {
        // A: 100 it/s solo, 3600 s of work; B: 50 it/s, 1800 s. Together A runs at 0.8, B at 0.6 of solo.
        // B finishes when 0.6*50*t = 90,000 -> t = 3000 s; A has then done 0.8*100*3000 = 240,000 of 360,000 and
        // finishes the remaining 120,000 alone at 100 it/s: t = 4200 s.
        Cluster c = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 360_000, 1000, 0), new Job("b", "u", 0, 1, B, 90_000, 1000, 0));
        SimulationResult r = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6)).run(jobs, new AllOnGpu0(), null);
        JobRecord a = r.jobs().get(0), b = r.jobs().get(1);
        assertThat(b.finish()).isCloseTo(3000, within(1e-6));
        assertThat(a.finish()).isCloseTo(4200, within(1e-6));
        assertThat(r.metrics().makespan_s()).isCloseTo(4200, within(1e-6));
        assertThat(r.metrics().gpu_shared_fraction()).isCloseTo(3000.0 / 4200, within(1e-9));
        assertThat(a.sharedSeconds()).isCloseTo(3000, within(1e-6));
        assertThat(a.partners()).containsExactly("b");
        assertThat(b.partners()).containsExactly("a");
        assertThat(b.slowdown()).isCloseTo(3000.0 / 1800, within(1e-9));
        assertThat(r.decisionsTotal()).isEqualTo(2);
        // the simulating thread's CPU time is measured beside the wall time, and cannot exceed it
        assertThat(r.metrics().cpu_seconds()).isPositive().isLessThanOrEqualTo(r.metrics().wall_seconds() + 0.01);
    }

    /**
     * Gavel's rounds, by hand, on 2 GPUs with no world rounds ({@link #PLAIN}): a (1,000 s) starts at once on an idle
     * cluster and opens a round to t=360; b arrives at t=100 beside an idle GPU and waits for that round's end; c comes at
     * t=1,500 to an empty cluster and starts at once (a new round, to t=1,860); d comes at t=1,600 and waits for t=1,860.
     * Without rounds each starts when it arrives.
     */
    @Test
    void aPolicyWithRoundsOfItsOwnIsAskedAtEachRoundsEndAndNotBetween() {
        Cluster c = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 100_000, 1000, 0), new Job("b", "u", 100, 1, B, 50_000, 1000, 0),
                new Job("c", "u", 1500, 1, A, 100_000, 1000, 0), new Job("d", "u", 1600, 1, B, 50_000, 1000, 0));
        Simulator sim = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6));
        java.util.Map<String, Double> rounds = firstStarts(sim.run(jobs, new dev.tandem.core.policies.GavelPackedPolicy(), null));
        assertThat(rounds).containsExactlyInAnyOrderEntriesOf(java.util.Map.of("a", 0.0, "b", 360.0, "c", 1500.0, "d", 1860.0));
        java.util.Map<String, Double> events = firstStarts(sim.run(jobs, new dev.tandem.core.policies.GavelPackedPolicy(1.5, 0), null));
        assertThat(events).containsExactlyInAnyOrderEntriesOf(java.util.Map.of("a", 0.0, "b", 100.0, "c", 1500.0, "d", 1600.0));
    }

    /**
     * A policy wanting 30 s between decisions ({@link Policy#decisionPeriodSeconds}), by hand on 3 GPUs: a starts at
     * once; b (t=5) and c (t=20) come in the period [0, 30) that has had its decision, wait for t=30 and start together;
     * d (t=100) starts at once, the first in [90, 120); e (t=110) waits for t=120. Asked at every event, each starts when
     * it arrives.
     */
    @Test
    void aPolicyWantingTimeBetweenDecisionsDecidesWhatCameMeanwhileTogether() {
        Cluster c = Cluster.homogeneous(1, 3, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 10_000, 1000, 0), new Job("b", "u", 5, 1, A, 10_000, 1000, 0),
                new Job("c", "u", 20, 1, B, 10_000, 1000, 0), new Job("d", "u", 100, 1, B, 1_000, 1000, 0), new Job("e", "u", 110, 1, A, 1_000, 1000, 0));
        Simulator sim = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6));
        Policy fifo = new FifoPolicy();
        Policy spaced = new Policy() {
            @Override public String name() { return "spaced-fifo"; }

            @Override public List<Decision> decide(SchedulerSnapshot s) { return fifo.decide(s); }

            @Override public double decisionPeriodSeconds(Cluster cluster) { return 30; }
        };
        SimulationResult r = sim.run(jobs, spaced, null);
        assertThat(firstStarts(r)).containsExactlyInAnyOrderEntriesOf(java.util.Map.of("a", 0.0, "b", 30.0, "c", 30.0, "d", 100.0, "e", 120.0));
        assertThat(firstStarts(sim.run(jobs, new FifoPolicy(), null)))
                .containsExactlyInAnyOrderEntriesOf(java.util.Map.of("a", 0.0, "b", 5.0, "c", 20.0, "d", 100.0, "e", 110.0));
        // three jobs of 10 s fill the GPUs and end inside the first period: the cluster is idle with three waiting
        // until t=30, which is a decision put off, not a policy that left them stuck
        List<Job> batch = new ArrayList<>();
        for (int i = 0; i < 6; i++) batch.add(new Job("s" + i, "u", 0, 1, A, 1_000, 1000, 0));
        assertThat(firstStarts(sim.run(batch, spaced, null)))
                .containsExactlyInAnyOrderEntriesOf(java.util.Map.of("s0", 0.0, "s1", 0.0, "s2", 0.0, "s3", 30.0, "s4", 30.0, "s5", 30.0));
    }

    private static java.util.Map<String, Double> firstStarts(SimulationResult r) {
        java.util.Map<String, Double> out = new java.util.HashMap<>();
        for (JobRecord j : r.jobs()) out.put(j.id(), j.firstStart());
        return out;
    }

    /** An oracle that always predicts the same speeds, so that what the recording keeps can be checked by hand. */
    static final dev.tandem.core.compat.CompatibilityModel FIXED = new dev.tandem.core.compat.CompatibilityModel() {
        @Override public String name() { return "fixed"; }
        @Override public dev.tandem.core.compat.PairPrediction predict(JobProfile a, JobProfile b) {
            return new dev.tandem.core.compat.PairPrediction(a.signature().equals(A) ? 0.9 : 0.5, b.signature().equals(A) ? 0.9 : 0.5, 0, "fixed");
        }
    };

    @Test
    void theRecordingKeepsTheTimelineAndEveryCoLocatedStretchOfTheHandComputedRun() {
        // the run of handComputedCoLocationToTheSecond: a and b share GPU 0 for 3000 s, then a runs alone until 4200 s
        Cluster c = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 360_000, 1000, 0), new Job("b", "u", 0, 1, B, 90_000, 1000, 0));
        SimulationResult r = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6), new Recording(10, 64, true)).run(jobs, new AllOnGpu0(), FIXED);
        assertThat(r.timeline()).containsExactlyInAnyOrder(
                new GpuSpan(0, 0, "a", 0, 3000, "b"), new GpuSpan(0, 1, "b", 0, 3000, "a"), new GpuSpan(0, 0, "a", 3000, 4200, null));
        assertThat(r.coRuns()).hasSize(2);
        CoRun a = r.coRuns().stream().filter(x -> x.job().equals("a")).findFirst().orElseThrow();
        assertThat(a.partner()).isEqualTo("b");
        assertThat(a.predictedSpeed()).isEqualTo(0.9);
        assertThat(a.trueSpeed()).isCloseTo(0.8, within(1e-12));
        assertThat(a.seconds()).isCloseTo(3000, within(1e-9));
        assertThat(a.measured()).isTrue();
        CoRun b = r.coRuns().stream().filter(x -> x.job().equals("b")).findFirst().orElseThrow();
        assertThat(b.predictedSpeed()).isEqualTo(0.5);
        assertThat(b.trueSpeed()).isCloseTo(0.6, within(1e-12));
        // without a recording nothing is kept
        SimulationResult plain = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6)).run(jobs, new AllOnGpu0(), FIXED);
        assertThat(plain.timeline()).isEmpty();
        assertThat(plain.coRuns()).isEmpty();
        assertThat(plain.jobs()).isEqualTo(r.jobs());
    }

    /** {@link #FIXED}, learning: keeps what the world reports. */
    static final class Learning implements dev.tandem.core.compat.CompatibilityModel, dev.tandem.core.compat.ObservationSink {
        final List<String> observed = new ArrayList<>();

        @Override public String name() { return "learning"; }

        @Override public dev.tandem.core.compat.PairPrediction predict(JobProfile a, JobProfile b) { return FIXED.predict(a, b); }

        @Override public void observe(WorkloadSignature a, WorkloadSignature b, int gpus, double speedA, double speedB) {
            observed.add(a.model() + "+" + b.model() + " on " + gpus);
        }
    }

    @Test
    void aGangPairIsReportedToTheOnlineModelOncePerPlacementAsTheDaemonDoes() {
        // two 2-GPU jobs share GPUs 0 and 1 from t=0; both speeds are measured at t=60: one observation, not one per GPU
        Cluster c = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 2, A, 360_000, 1000, 0), new Job("b", "u", 0, 2, B, 90_000, 1000, 0));
        Policy bothOnTheSameGpus = new Policy() {
            @Override public String name() { return "both-on-0-1"; }

            @Override public List<Decision> decide(SchedulerSnapshot s) {
                return s.queue().stream().<Decision>map(p -> new Decision.Start(p.id(), List.of(0, 1), "test")).toList();
            }
        };
        Learning model = new Learning();
        SimulationResult r = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6)).run(jobs, bothOnTheSameGpus, model);
        assertThat(r.jobs().get(0).partners()).containsExactly("b");
        assertThat(model.observed).containsExactly("A+B on 2");
    }

    @Test
    void finishTimeFairnessByHand() {
        // 1 GPU. a and b are both in the system for 3000 s (b finishes), then a alone until 4200 s:
        // a averages (2 * 3000 + 1 * 1200) / 4200 = 1.714 jobs, so its equal share is 1/1.714 GPU and it would need
        // 3600 s * 1.714 = 6171 s on it; b averages 2 jobs: 1800 s * 2 = 3600 s.
        Cluster c = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 360_000, 1000, 0), new Job("b", "u", 0, 1, B, 90_000, 1000, 0));
        SimulationResult r = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6)).run(jobs, new AllOnGpu0(), null);
        JobRecord a = r.jobs().get(0), b = r.jobs().get(1);
        assertThat(a.fairSeconds()).isCloseTo(3600 * 7200.0 / 4200, within(1e-6));
        assertThat(a.finishTimeFairness()).isCloseTo(4200 / (3600 * 7200.0 / 4200), within(1e-9));
        assertThat(b.fairSeconds()).isCloseTo(3600, within(1e-6));
        assertThat(b.finishTimeFairness()).isCloseTo(3000.0 / 3600, within(1e-9));
        assertThat(r.metrics().ftf_max()).isEqualTo(Math.max(a.finishTimeFairness(), b.finishTimeFairness()));
        // on a cluster with room for every job, the share never binds: fair time = solo time
        Cluster two = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);
        SimulationResult roomy = new Simulator(PLAIN, two, profiles(1000, 1000), truth(0.8, 0.6)).run(jobs, new FifoPolicy(), null);
        for (JobRecord j : roomy.jobs()) {
            assertThat(j.fairSeconds()).isEqualTo(j.soloSeconds());
            assertThat(j.finishTimeFairness()).isCloseTo(1, within(1e-9));
        }
    }

    @Test
    void recordingOnlyWatches() {
        // the timeline and the co-located stretches must not change the run: same jobs, same decisions, every policy
        var sc = dev.tandem.sim.scenario.ScenarioFixtures.lucid(80, "poisson:20", 5);
        for (String p : dev.tandem.core.policies.PolicyCatalog.names()) {
            SimulationResult plain = sc.run(p, ProgressListener.NONE), recorded = sc.run(p, ProgressListener.NONE, Recording.forReport(0));
            assertThat(recorded.jobs()).as(p).isEqualTo(plain.jobs());
            assertThat(recorded.decisions()).as(p).isEqualTo(plain.decisions());
            assertThat(recorded.timeline()).as(p).isNotEmpty();
            // every GPU's bars never overlap within a lane, and a lane holds at most two jobs at a time
            var byLane = new java.util.HashMap<String, List<GpuSpan>>();
            for (GpuSpan s : recorded.timeline()) byLane.computeIfAbsent(s.gpu() + "/" + s.lane(), k -> new ArrayList<>()).add(s);
            byLane.forEach((lane, spans) -> {
                spans.sort(java.util.Comparator.comparingDouble(GpuSpan::start));
                for (int i = 1; i < spans.size(); i++) assertThat(spans.get(i).start()).as(p + " lane " + lane).isGreaterThanOrEqualTo(spans.get(i - 1).end() - 1e-9);
            });
            // shared seconds per job add up from its co-located stretches
            if (recorded.metrics().gpu_shared_fraction() > 0) {
                for (JobRecord j : recorded.jobs()) {
                    double fromStretches = recorded.coRuns().stream().filter(x -> x.job().equals(j.id())).mapToDouble(CoRun::seconds).sum();
                    assertThat(fromStretches).as(p + " " + j.id()).isCloseTo(j.sharedSeconds(), within(1e-6 * Math.max(1, j.sharedSeconds())));
                }
            }
        }
    }

    @Test
    void wakeUpsSpareOnlyDecisionsThatChangeNothing() {
        // Tiresias names when time alone can next change its ranking; asked at every round and speed observation
        // instead (the default wake-up), it must decide exactly the same, job by job and decision by decision
        var sc = dev.tandem.sim.scenario.Scenario.load(new dev.tandem.sim.scenario.ScenarioSpec(dev.tandem.data.DataSource.LUCID_PROFILES.name(),
                dev.tandem.data.DataSource.LUCID_PAIRS.name(), dev.tandem.data.DataSource.LUCID_PAIRS.name(), "v100", "auto", true,
                Cluster.parse("2x4:RTX3090-24GB"), dev.tandem.sim.workload.WorkloadSpec.of(160, "poisson:6", "1:0.6,2:0.25,4:0.15", 600, 36000, 3),
                SimConfig.defaults(), dev.tandem.core.policies.TandemPolicy.Config.defaults()));
        Recording all = Recording.DEFAULT.withDecisions(Integer.MAX_VALUE);
        Policy tiresias = new dev.tandem.core.policies.TiresiasPolicy();
        Policy everyRound = new Policy() {
            private final Policy inner = new dev.tandem.core.policies.TiresiasPolicy();
            @Override public String name() { return inner.name(); }
            @Override public List<Decision> decide(SchedulerSnapshot s) { return inner.decide(s); }
            @Override public boolean actsOnRunningJobs() { return inner.actsOnRunningJobs(); }
        };
        SimulationResult woken = new Simulator(sc.spec().sim(), sc.cluster(), sc.profiles(), sc.truth(), all).run(sc.jobs(), tiresias, sc.newOracle());
        SimulationResult asked = new Simulator(sc.spec().sim(), sc.cluster(), sc.profiles(), sc.truth(), all).run(sc.jobs(), everyRound, sc.newOracle());
        assertThat(asked.metrics().preemptions()).as("the workload makes Tiresias demote and preempt").isGreaterThan(50);
        assertThat(woken.jobs()).isEqualTo(asked.jobs());
        assertThat(woken.decisions()).isEqualTo(asked.decisions());
        assertThat(woken.metrics().policy_calls()).as("rounds and observations spared").isLessThan(asked.metrics().policy_calls() * 9 / 10);
    }

    @Test
    void everyDecisionIsCountedThoughOnlyTheAskedNumberIsKept() {
        Cluster c = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 30; i++) jobs.add(new Job("j" + i, "u", 0, 1, A, 1000, 1000, 0));
        SimulationResult few = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6), Recording.DEFAULT.withDecisions(5)).run(jobs, new FifoPolicy(), null);
        assertThat(few.decisions()).hasSize(5);
        assertThat(few.decisionsTotal()).isEqualTo(30);
        assertThat(new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6), Recording.DEFAULT.withDecisions(1000)).run(jobs, new FifoPolicy(), null).decisions()).hasSize(30);
    }

    @Test
    void sameInstantArrivalsRunInTheWorkloadsOrderNotTheirIdsTextOrder() {
        // ids 0..11 all at t=0 on one GPU: as text, "10" and "11" would sort before "2"
        Cluster c = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 12; i++) jobs.add(new Job(Integer.toString(i), "u", 0, 1, A, 1000, 1000, 0));
        SimulationResult r = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6)).run(jobs, new FifoPolicy(), null);
        List<String> byStart = r.jobs().stream().sorted(java.util.Comparator.comparingDouble(JobRecord::firstStart)).map(JobRecord::id).toList();
        assertThat(byStart).containsExactly("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11");
        // and a later arrival listed first still waits for its time
        List<Job> shuffled = new ArrayList<>(jobs);
        shuffled.add(0, new Job("late", "u", 5, 1, A, 1000, 1000, 0));
        SimulationResult r2 = new Simulator(PLAIN, c, profiles(1000, 1000), truth(0.8, 0.6)).run(shuffled, new FifoPolicy(), null);
        assertThat(r2.jobs().stream().sorted(java.util.Comparator.comparingDouble(JobRecord::firstStart)).map(JobRecord::id).toList())
                .endsWith("10", "11", "late");
    }

    @Test
    void everyJobCompletesExactlyItsWork() {
        Cluster c = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 30; i++) jobs.add(new Job(String.format("j%02d", i), "u", i * 100.0, 1, i % 2 == 0 ? A : B, 10_000 + 997 * i, 1000, 0));
        for (Policy p : List.of(new FifoPolicy(), new AllOnGpu0(), new dev.tandem.core.policies.TandemPolicy(), new dev.tandem.core.policies.TiresiasPolicy())) {
            SimulationResult r = new Simulator(SimConfig.defaults(), c, profiles(1000, 1000), truth(0.7, 0.6)).run(jobs, p,
                    new dev.tandem.core.compat.UtilSumModel(1.0, -0.3, 0.05));
            assertThat(r.metrics().jobs_completed()).isEqualTo(30);
            for (JobRecord j : r.jobs()) {
                assertThat(j.iterationsDone()).as(p.name() + " " + j.id()).isCloseTo(j.iterations(), within(1e-6 * j.iterations()));
                assertThat(j.finish()).isGreaterThanOrEqualTo(j.submit() + j.soloSeconds() - 1e-6);
            }
        }
    }

    @Test
    void overflowingMemoryCrashesTheNewerJobWhichRestartsAndStillFinishes() {
        // 14 GB + 12 GB on a 24 GB GPU: the second job crashes 30 s after it starts, loses that progress,
        // and runs again once the GPU has room.
        Cluster c = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 360_000, 14_000, 0), new Job("b", "u", 10, 1, B, 90_000, 12_000, 0));
        SimulationResult r = new Simulator(PLAIN, c, profiles(14_000, 12_000), truth(0.8, 0.6)).run(jobs, new AllOnGpu0(), null);
        assertThat(r.metrics().oom_events()).isEqualTo(1);
        JobRecord a = r.jobs().get(0), b = r.jobs().get(1);
        assertThat(b.ooms()).isEqualTo(1);
        assertThat(b.iterationsDone()).isCloseTo(90_000, within(1e-6));
        assertThat(r.decisions()).anyMatch(d -> d.contains("oom b"));
        // a: 10 s alone, 30 s at 0.8 next to b, then alone: loses 6 s; b, never paired with a again, runs after it
        assertThat(a.finish()).isCloseTo(3606, within(1e-6));
        assertThat(b.finish()).isCloseTo(3606 + 1800, within(1e-6));
    }

    /**
     * 2 GPUs. "a" (14 GB) runs on GPU 0 and "b" (12 GB) is put next to it: b runs out of memory at 40 s. "c" (1 GB, a
     * third workload b never met, 1,000 s) arrives at {@code cArrives} and is put on GPU 1. After its crash b goes to
     * GPU 1: next to c if {@code pairAfterCrash}, else only when GPU 1 is idle (the snapshot says b must run alone).
     */
    private static SimulationResult crashThenC(boolean pairAfterCrash, double cArrives, List<String> seen) {
        WorkloadSignature cSig = new WorkloadSignature("C", "d", 32, false);
        ProfileStore profiles = new ProfileStore(List.of(JobProfile.basic(A, 100, 50, 20, 14_000), JobProfile.basic(B, 50, 40, 20, 12_000),
                JobProfile.basic(cSig, 100, 30, 10, 1_000)));
        Cluster c = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 360_000, 14_000, 0), new Job("b", "u", 10, 1, B, 90_000, 12_000, 0),
                new Job("c", "u", cArrives, 1, cSig, 100_000, 1_000, 0));
        Policy policy = new Policy() {
            @Override public String name() { return pairAfterCrash ? "pairs-anyway" : "honours-runs-alone"; }

            @Override public List<Decision> decide(SchedulerSnapshot s) {
                List<Decision> out = new ArrayList<>();
                var byGpu = occupantsByGpu(s);
                for (var p : s.queue()) {
                    String alone = s.runsAlone(p.job());
                    seen.add(p.id() + "@" + (long) s.now() + ":" + alone);
                    int gpu = p.id().equals("c") ? 1 : alone == null ? 0 : 1;
                    boolean idle = byGpu.getOrDefault(gpu, List.of()).isEmpty();
                    if (alone == null || pairAfterCrash || idle) out.add(new Decision.Start(p.id(), List.of(gpu), "test"));
                    if (alone == null || pairAfterCrash || idle) byGpu.computeIfAbsent(gpu, g -> new ArrayList<>()).add(null);
                }
                return out;
            }
        };
        return new Simulator(PLAIN, c, profiles, truth(0.8, 0.6)).run(jobs, policy, null);
    }

    @Test
    void aJobThatRanOutOfMemoryNextToAPartnerRunsAloneUntilItEnds() {
        List<String> seen = new ArrayList<>();
        SimulationResult r = crashThenC(false, 20, seen);
        assertThat(seen).contains("b@10:null", "b@40:" + dev.tandem.core.runtime.OutOfMemoryRule.RUNS_ALONE);
        JobRecord b = r.jobs().get(1);
        assertThat(b.ooms()).isEqualTo(1);
        assertThat(b.partners()).containsExactly("a"); // never c: it waited for c to end (1,020 s) and ran alone on GPU 1
        assertThat(b.finish()).isCloseTo(1020 + 1800, within(1e-6));
        // a policy that pairs it all the same made an invalid decision, as any placement the rules refuse: b joining c,
        // or c joining b (c arrives at 50 s, when b runs alone on GPU 1)
        assertThatThrownBy(() -> crashThenC(true, 20, new ArrayList<>())).isInstanceOf(SimulationException.class)
                .hasMessageContaining("Start[jobId=b").hasMessageContaining(dev.tandem.core.runtime.OutOfMemoryRule.RUNS_ALONE);
        assertThatThrownBy(() -> crashThenC(false, 50, new ArrayList<>())).isInstanceOf(SimulationException.class)
                .hasMessageContaining("Start[jobId=c").hasMessageContaining("job b must run alone");
    }

    /**
     * What the simulator hands a policy about a GPU's jobs, and about every running job, without views
     * ({@code Occupancy.readOccupants}, {@code readRunning}) is what their views say, in their order, at every decision, for jobs of known and of unknown length, whether or not a view was
     * made before; and a job's remaining iterations read through the reader handed out at an earlier decision
     * ({@code Occupancy.remainingReader}) are what its view says now, for as long as it keeps running.
     */
    @Test
    void occupantsReadWithoutViewsAreWhatTheViewsSay() {
        var sc = dev.tandem.sim.scenario.ScenarioFixtures.lucid(80, "poisson:6", 5);
        for (Knowledge knowledge : List.of(Knowledge.EXACT, Knowledge.NONE)) {
            List<String> differences = new ArrayList<>();
            int[] compared = {0}, readLater = {0};
            Map<String, java.util.function.DoubleSupplier> readers = new HashMap<>(); // by job and start time
            Policy inner = dev.tandem.core.policies.PolicyCatalog.create("tandem");
            Policy watching = new Policy() {
                @Override public String name() { return inner.name(); }
                @Override public boolean actsOnRunningJobs() { return true; }
                @Override public List<Decision> decide(SchedulerSnapshot s) {
                    for (int g = 0; g < s.cluster().gpuCount(); g++) {
                        List<String> read = new ArrayList<>(), again = new ArrayList<>(), viewed = new ArrayList<>();
                        s.occupancy().readOccupants(g, (job, started, remaining, attained, known) -> read.add(job.id() + " " + started + " " + remaining + " " + attained + " " + known));
                        for (var r : s.occupancy().runningOn(g)) viewed.add(r.id() + " " + r.startedAt() + " " + r.remainingIterations() + " " + r.attainedGpuSeconds() + " " + r.lengthKnown());
                        s.occupancy().readOccupants(g, (job, started, remaining, attained, known) -> again.add(job.id() + " " + started + " " + remaining + " " + attained + " " + known));
                        if (!read.equals(viewed) || !again.equals(viewed)) differences.add(read + " / " + again + " / " + viewed);
                        compared[0] += viewed.size();
                    }
                    List<String> all = new ArrayList<>(), allViewed = new ArrayList<>();
                    s.occupancy().readRunning((job, started, remaining, attained, known) -> all.add(job.id() + " " + started + " " + remaining + " " + attained + " " + known));
                    for (var r : s.running()) allViewed.add(r.id() + " " + r.startedAt() + " " + r.remainingIterations() + " " + r.attainedGpuSeconds() + " " + r.lengthKnown());
                    if (!all.equals(allViewed)) differences.add("every running job: " + all + " / " + allViewed);
                    Map<String, java.util.function.DoubleSupplier> stillRunning = new HashMap<>();
                    for (var r : s.running()) {
                        String run = r.id() + "@" + r.startedAt();
                        var reader = readers.get(run);
                        if (reader == null) reader = s.occupancy().remainingReader(r.id());
                        else readLater[0]++;
                        if (reader == null || reader.getAsDouble() != r.remainingIterations())
                            differences.add("remaining of " + run + ": " + (reader == null ? null : reader.getAsDouble()) + " / " + r.remainingIterations());
                        stillRunning.put(run, reader);
                    }
                    readers.keySet().retainAll(stillRunning.keySet());
                    readers.putAll(stillRunning);
                    return inner.decide(s);
                }
            };
            new Simulator(SimConfig.defaults().withKnowledge(knowledge, 1), sc.cluster(), sc.profiles(), sc.truth()).run(sc.jobs(), watching, sc.newOracle());
            assertThat(differences).as(knowledge.toString()).isEmpty();
            assertThat(compared[0]).as("occupants compared").isGreaterThan(100);
            assertThat(readLater[0]).as("remaining read at a later decision").isGreaterThan(100);
        }
    }

    @Test
    void noGpuIsOverItsMemoryUnlessACrashIsRecorded() {
        var sc = dev.tandem.sim.scenario.ScenarioFixtures.lucid(120, "batch", 3);
        for (String policy : List.of("gandiva", "fifo-packed", "gavel-packed", "lucid", "tandem")) {
            List<String> overfull = new ArrayList<>();
            Policy inner = dev.tandem.core.policies.PolicyCatalog.create(policy);
            Policy watching = new Policy() {
                @Override public String name() { return inner.name(); }
                @Override public boolean actsOnRunningJobs() { return inner.actsOnRunningJobs(); }
                @Override public List<Decision> decide(SchedulerSnapshot s) {
                    occupantsByGpu(s).forEach((g, js) -> {
                        long mem = js.stream().mapToLong(j -> j.job().memoryMiB()).sum();
                        if (mem > s.cluster().gpu(g).type().memoryMiB()) js.forEach(j -> overfull.add(j.id()));
                    });
                    return inner.decide(s);
                }
            };
            SimulationResult r = new Simulator(SimConfig.defaults(), sc.cluster(), sc.profiles(), sc.truth()).run(sc.jobs(), watching, sc.newOracle());
            for (String id : overfull) {
                assertThat(r.jobs().stream().filter(j -> overfull.contains(j.id())).mapToInt(JobRecord::ooms).sum())
                        .as(policy + ": " + id + " was on an over-full GPU").isPositive();
            }
        }
    }

    /**
     * The live daemon's clusters keep each job on one node. A gang mix on 4-GPU nodes makes the placement spread
     * gangs in a simulated cluster; with gangs on one node no policy may do so (the simulator's validator would
     * fail the run), and every job still finishes.
     */
    @Test
    void whereGangsStayOnOneNodeNoPolicySpreadsOne() {
        var sc = dev.tandem.sim.scenario.ScenarioFixtures.gavel(60, "1,2,4", "3x4:V100-32GB", 11);
        Cluster oneNode = sc.cluster().withGangsOnOneNode();
        List<String> spreadWhereAllowed = new ArrayList<>();
        for (String policy : dev.tandem.core.policies.PolicyCatalog.names()) {
            for (Cluster c : List.of(sc.cluster(), oneNode)) {
                List<String> spanning = new ArrayList<>();
                Policy inner = dev.tandem.core.policies.PolicyCatalog.create(policy);
                Policy watching = new Policy() {
                    @Override public String name() { return inner.name(); }
                    @Override public boolean actsOnRunningJobs() { return inner.actsOnRunningJobs(); }
                    @Override public List<Decision> decide(SchedulerSnapshot s) {
                        List<Decision> out = inner.decide(s);
                        for (Decision d : out) {
                            List<Integer> gpus = d instanceof Decision.Start st ? st.gpus() : d instanceof Decision.Migrate m ? m.gpus() : List.of();
                            if (gpus.stream().map(c::nodeIndexOf).distinct().count() > 1) spanning.add(d.toString());
                        }
                        return out;
                    }
                };
                SimulationResult r = new Simulator(SimConfig.defaults(), c, sc.profiles(), sc.truth()).run(sc.jobs(), watching, sc.newOracle());
                assertThat(r.jobs()).as(policy).hasSize(60).allMatch(j -> j.finish() > 0);
                if (c == oneNode) assertThat(spanning).as(policy + " with gangs on one node").isEmpty();
                else if (!spanning.isEmpty()) spreadWhereAllowed.add(policy);
            }
        }
        assertThat(spreadWhereAllowed).as("policies that spread a gang where the cluster lets them").isNotEmpty();
    }

    /**
     * Gangs, reservations and suspensions together, with lengths seen through noise: once, a GPU freed by suspending
     * a gang was taken as idle though a reservation still held it, and the run failed. Every policy finishes every job.
     * Once, tandem named a hold for a gang it had just started as a partner, which the world refuses.
     */
    @Test
    void gangsWithNoisyLengthsRunToTheEndUnderEveryPolicy() {
        var spec = new dev.tandem.sim.scenario.ScenarioSpec(dev.tandem.data.DataSource.LUCID_PROFILES.name(), dev.tandem.data.DataSource.LUCID_PAIRS.name(),
                dev.tandem.data.DataSource.LUCID_PAIRS.name(), "v100", "auto", true, Cluster.parse("2x8:RTX3090-24GB"),
                dev.tandem.sim.workload.WorkloadSpec.of(400, "poisson:3", "1:0.7,2:0.1,4:0.15,8:0.05", 1800, 57600, 1),
                SimConfig.defaults().withKnowledge(Knowledge.noisy(1), 1), dev.tandem.core.policies.TandemPolicy.Config.defaults());
        var sc = dev.tandem.sim.scenario.Scenario.load(spec);
        for (String p : dev.tandem.core.policies.PolicyCatalog.names()) {
            Metrics m = sc.run(p, ProgressListener.NONE).metrics();
            assertThat(m.jobs_completed()).as(p).isEqualTo(400);
            // tandem holds GPUs for gangs here (and once told the world of a hold for a gang it had just paired)
            if (p.equals("tandem")) assertThat(m.reservations()).as(p).isPositive();
            else assertThat(m.reservations()).as(p).isZero();
        }
    }

    @Test
    void deterministicForASeed() {
        var s1 = dev.tandem.sim.scenario.ScenarioFixtures.lucid(80, "poisson:20", 5);
        var s2 = dev.tandem.sim.scenario.ScenarioFixtures.lucid(80, "poisson:20", 5);
        var s3 = dev.tandem.sim.scenario.ScenarioFixtures.lucid(80, "poisson:20", 6);
        for (String p : List.of("tandem", "gandiva", "tiresias")) {
            SimulationResult a = s1.run(p, ProgressListener.NONE), b = s2.run(p, ProgressListener.NONE), c = s3.run(p, ProgressListener.NONE);
            assertThat(b.jobs()).isEqualTo(a.jobs());
            assertThat(b.decisions()).isEqualTo(a.decisions());
            assertThat(c.jobs()).isNotEqualTo(a.jobs());
        }
    }

    @Test
    void invalidDecisionsAreRejectedWithTheReason() {
        Cluster c = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 1000, 1000, 0));
        Policy wrongGpu = new Policy() {
            @Override public String name() { return "bad"; }
            @Override public List<Decision> decide(SchedulerSnapshot s) { return List.of(new Decision.Start("a", List.of(5), "x")); }
        };
        assertThatThrownBy(() -> new Simulator(PLAIN, c, profiles(1000, 1000), truth(1, 1)).run(jobs, wrongGpu, null))
                .isInstanceOf(SimulationException.class).hasMessageContaining("GPU 5 does not exist");
        Policy idle = new Policy() {
            @Override public String name() { return "idle"; }
            @Override public List<Decision> decide(SchedulerSnapshot s) { return List.of(); }
        };
        assertThatThrownBy(() -> new Simulator(PLAIN, c, profiles(1000, 1000), truth(1, 1)).run(jobs, idle, null))
                .hasMessageContaining("left 1 job(s) queued on an idle cluster");
        // a hold is checked as in every world (Reservations.refusal): for a running job, or on GPUs the job could not use
        Cluster two = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);
        Policy holdsForRunning = new Policy() {
            @Override public String name() { return "holds-for-running"; }
            @Override public List<Decision> decide(SchedulerSnapshot s) {
                return List.of(new Decision.Start("a", List.of(0), "x"), new Decision.Reserve("a", List.of(1), 10, "x"));
            }
        };
        assertThatThrownBy(() -> new Simulator(PLAIN, two, profiles(1000, 1000), truth(1, 1)).run(jobs, holdsForRunning, null))
                .isInstanceOf(SimulationException.class).hasMessageContaining("Reserve[jobId=a").hasMessageContaining("job a is not waiting");
        Policy holdsTooFew = new Policy() {
            @Override public String name() { return "holds-too-few"; }
            @Override public List<Decision> decide(SchedulerSnapshot s) {
                return List.of(new Decision.Reserve("g", List.of(1), 10, "x"), new Decision.Start("g", List.of(0, 1), "x"));
            }
        };
        assertThatThrownBy(() -> new Simulator(PLAIN, two, profiles(1000, 1000), truth(1, 1)).run(List.of(new Job("g", "u", 0, 2, A, 1000, 1000, 0)), holdsTooFew, null))
                .isInstanceOf(SimulationException.class).hasMessageContaining("needs 2 GPU(s), decision gives 1");
        List<Job> tooBig = List.of(new Job("big", "u", 0, 2, A, 1000, 1000, 0));
        assertThatThrownBy(() -> new Simulator(PLAIN, c, profiles(1000, 1000), truth(1, 1)).run(tooBig, new FifoPolicy(), null))
                .hasMessageContaining("needs 2 GPUs; the cluster has 1");
    }

    /**
     * Two nodes of two GPUs; three one-GPU jobs fill GPUs 0-2, the shortest (on GPU 1) ends at 10 s, and a 2-GPU gang
     * waits. Where gangs may span nodes (a simulated cluster's default) it starts at 10 s on GPUs 1 and 3; where a job's
     * GPUs lie on one node (the daemon's rule, {@code --gangs-on-one-node}) it waits for a node of its own. A job wider
     * than every node is refused there, by name.
     */
    @Test
    void aGangSpansNodesOnlyWhereTheClusterLetsIt() {
        Cluster spanning = Cluster.homogeneous(2, 2, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 100_000, 1000, 0), new Job("b", "u", 0, 1, A, 1_000, 1000, 0),
                new Job("c", "u", 0, 1, A, 200_000, 1000, 0), new Job("g", "u", 5, 2, A, 1_000, 1000, 0));
        assertThat(firstStarts(new Simulator(PLAIN, spanning, profiles(1000, 1000), truth(1, 1)).run(jobs, new FifoPolicy(), null)))
                .containsEntry("g", 10.0);
        Cluster oneNode = spanning.withGangsOnOneNode();
        assertThat(firstStarts(new Simulator(PLAIN, oneNode, profiles(1000, 1000), truth(1, 1)).run(jobs, new FifoPolicy(), null)))
                .containsEntry("g", 1_000.0);
        List<Job> wide = List.of(new Job("w", "u", 0, 4, A, 1_000, 1000, 0));
        assertThatThrownBy(() -> new Simulator(PLAIN, oneNode, profiles(1000, 1000), truth(1, 1)).run(wide, new FifoPolicy(), null))
                .hasMessageContaining("job w needs 4 GPUs; a job's GPUs lie on one node here, and the largest node has 2");
    }

    @Test
    void theHoldsAPolicyMakesAreRecordedOnceEach() {
        // 1 node of 2 GPUs; a 1-GPU job runs 1,000 s on GPU 0 (from 0), a 2-GPU gang of 600 s arrives at 0, a 10-hour
        // job at 650 s, a short one at 800 s. The policy holds both GPUs for the gang at every decision from 600 s on (at
        // 650 s and 800 s: the same hold, recorded once), and starts the others after the gang
        Cluster two = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);
        List<Job> jobs = List.of(new Job("r", "u", 0, 1, A, 100_000, 1000, 0), new Job("g", "u", 0, 2, A, 60_000, 1000, 0),
                new Job("s", "u", 650, 1, A, 3_600_000, 1000, 0), new Job("t", "u", 800, 1, A, 1_000, 1000, 0));
        Policy holding = new Policy() {
            @Override public String name() { return "holding"; }
            @Override public List<Decision> decide(SchedulerSnapshot s) {
                List<Decision> out = new ArrayList<>();
                boolean gangWaits = s.queue().stream().anyMatch(p -> p.id().equals("g"));
                for (var p : s.queue()) {
                    if (p.id().equals("r") && occupantsByGpu(s).isEmpty()) out.add(new Decision.Start("r", List.of(0), "first"));
                    boolean rWaits = s.queue().stream().anyMatch(q -> q.id().equals("r"));
                    if (p.id().equals("g") && occupantsByGpu(s).isEmpty() && !rWaits) out.add(new Decision.Start("g", List.of(0, 1), "all idle"));
                    if (p.id().equals("s") && !gangWaits && occupantsByGpu(s).isEmpty()) out.add(new Decision.Start("s", List.of(1), "after the gang"));
                    if (p.id().equals("t") && !gangWaits && occupantsByGpu(s).isEmpty()) out.add(new Decision.Start("t", List.of(0), "after the gang"));
                }
                if (gangWaits && !occupantsByGpu(s).isEmpty() && s.now() >= 600) out.add(new Decision.Reserve("g", List.of(0, 1), 1000 - s.now(), "held"));
                return out;
            }
            @Override public boolean actsOnRunningJobs() { return true; }
        };
        SimulationResult r = new Simulator(PLAIN, two, profiles(1000, 1000), truth(1, 1), new Recording(20, 0, false)).run(jobs, holding, null);
        assertThat(r.metrics().reservations()).isEqualTo(1);
        assertThat(r.decisions()).filteredOn(d -> d.contains("reserve")).containsExactly("t=650 reserve g: held");
        JobRecord g = r.jobs().stream().filter(j -> j.id().equals("g")).findFirst().orElseThrow();
        assertThat(g.firstStart()).isCloseTo(1000, within(1e-6));
        assertThat(r.jobs()).filteredOn(j -> !j.id().equals("r") && !j.id().equals("g")).allSatisfy(j -> assertThat(j.firstStart()).isCloseTo(1600, within(1e-6)));
        // a hold named and then ended by the start of its job in the same decision is no hold
        Policy holdsThenStarts = new Policy() {
            @Override public String name() { return "holds-then-starts"; }
            @Override public List<Decision> decide(SchedulerSnapshot s) {
                return List.of(new Decision.Reserve("g", List.of(0, 1), 10, "x"), new Decision.Start("g", List.of(0, 1), "x"));
            }
        };
        SimulationResult started = new Simulator(PLAIN, two, profiles(1000, 1000), truth(1, 1), new Recording(20, 0, false))
                .run(List.of(new Job("g", "u", 0, 2, A, 1000, 1000, 0)), holdsThenStarts, null);
        assertThat(started.metrics().reservations()).isZero();
        assertThat(started.decisions()).noneMatch(d -> d.contains("reserve"));
    }

    /** Running jobs indexed by GPU id, from the snapshot's list of them (small worlds only). */
    private static Map<Integer, List<RunningJob>> occupantsByGpu(SchedulerSnapshot s) {
        Map<Integer, List<RunningJob>> m = new HashMap<>();
        for (var r : s.running()) for (int g : r.gpus()) m.computeIfAbsent(g, x -> new ArrayList<>(2)).add(r);
        return m;
    }
}
