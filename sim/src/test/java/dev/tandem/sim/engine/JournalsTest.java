package dev.tandem.sim.engine;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.PredictionMemo;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.data.DataSource;
import dev.tandem.data.MeasuredPair;
import dev.tandem.data.truth.ContentionFallback;
import dev.tandem.data.truth.InterferenceTruth;
import dev.tandem.data.truth.MeasuredTruth;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.sim.scenario.ScenarioSpec;
import dev.tandem.sim.workload.WorkloadSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Policies that follow the simulator's journals across rounds (the queue's changes, running jobs' starts and stops,
 * jobs coming to run alone and ceasing to), and the oracle's answers the simulator keeps across rounds (forgotten per
 * pair as the oracle learns), must decide exactly as they do when every round starts from the snapshot alone, as the
 * daemon's rounds do: every policy, on arrivals of gangs with preemptions, pairings, splits and
 * out-of-memory crashes, job by job and decision by decision.
 */
class JournalsTest {
    /**
     * The policy, handed each snapshot without the world's journals and without the oracle's answers the world keeps
     * across decisions (each decision asks the oracle afresh, as in the daemon).
     */
    private record WithoutJournals(Policy inner) implements Policy {
        @Override public String name() { return inner.name(); }

        @Override public List<Decision> decide(SchedulerSnapshot s) {
            return inner.decide(s.withQueueJournal(null).withRunningJournal(null).withSoleTenantJournal(null).withPredictionMemo(new PredictionMemo()));
        }

        @Override public boolean actsOnRunningJobs() { return inner.actsOnRunningJobs(); }

        @Override public double wakeUpAt() { return inner.wakeUpAt(); }

        @Override public boolean decidesInRounds() { return inner.decidesInRounds(); }

        @Override public Optional<String> pairingRefusal(SchedulerSnapshot s, Job guest, Job host, List<Integer> hostGpus) {
            return inner.pairingRefusal(s, guest, host, hostGpus);
        }
    }

    @Test
    void everyPolicyDecidesAsWithoutTheJournalsOnMeasuredData() {
        ScenarioSpec spec = new ScenarioSpec(DataSource.LUCID_PROFILES.name(), DataSource.LUCID_PAIRS.name(), DataSource.LUCID_PAIRS.name(), "v100",
                "auto", true, Cluster.parse("2x8:RTX3090-24GB"), WorkloadSpec.of(300, "poisson:4", "1:0.7,2:0.1,4:0.15,8:0.05", 1800, 57600, 3),
                SimConfig.defaults(), TandemPolicy.Config.defaults());
        Scenario sc = Scenario.load(spec);
        Totals t = compareEveryPolicy(sc.spec().sim(), sc.cluster(), sc.profiles(), sc.truth(), sc.jobs(), sc::newOracle); // learns online
        assertThat(t.pairings).as("pairings").isGreaterThan(100);
        assertThat(t.preemptions).as("preemptions").isGreaterThan(100);
    }

    /**
     * Without exact lengths too: with {@code noisy:1} the remaining times the policies see stop falling once a job outruns
     * its estimate (SRTF keys again only the running jobs whose old remaining time could matter, see
     * {@code RankedRunning}), and with {@code none} they never fall; tandem also stops trusting the declared lengths.
     */
    @Test
    void everyPolicyDecidesAsWithoutTheJournalsWithoutExactLengths() {
        for (String knowledge : List.of("noisy:1", "none")) {
            ScenarioSpec spec = new ScenarioSpec(DataSource.LUCID_PROFILES.name(), DataSource.LUCID_PAIRS.name(), DataSource.LUCID_PAIRS.name(), "v100",
                    "auto", true, Cluster.parse("2x8:RTX3090-24GB"), WorkloadSpec.of(300, "poisson:4", "1:0.7,2:0.1,4:0.15,8:0.05", 1800, 57600, 5),
                    SimConfig.defaults().withKnowledge(Knowledge.parse(knowledge), 5), TandemPolicy.Config.defaults());
            Scenario sc = Scenario.load(spec);
            Totals t = compareEveryPolicy(sc.spec().sim(), sc.cluster(), sc.profiles(), sc.truth(), sc.jobs(), sc::newOracle);
            assertThat(t.preemptions).as(knowledge + " preemptions").isGreaterThan(100);
        }
    }

    /**
     * Pairs of A and B run out of memory whatever the oracle says: the crashes teach memory estimates (the packing
     * policies' hosts are then charged more) and make jobs run alone, on arrivals of 1-, 2- and 4-GPU gangs.
     */
    @Test
    void everyPolicyDecidesAsWithoutTheJournalsThroughOutOfMemoryCrashes() {
        WorkloadSignature a = new WorkloadSignature("A", "d", 32, false), b = new WorkloadSignature("B", "d", 32, false),
                c = new WorkloadSignature("C", "d", 32, false);
        ProfileStore profiles = new ProfileStore(List.of(JobProfile.basic(a, 100, 50, 20, 6_000), JobProfile.basic(b, 50, 40, 20, 8_000),
                JobProfile.basic(c, 80, 30, 10, 4_000)));
        List<MeasuredPair> pairs = new ArrayList<>();
        for (int g : new int[] {1, 2, 4}) {
            pairs.add(new MeasuredPair(a, b, g, 0.8, 0.7, Double.NaN, true));
            pairs.add(new MeasuredPair(a, c, g, 0.9, 0.8, Double.NaN, false));
            pairs.add(new MeasuredPair(b, c, g, 0.7, 0.9, Double.NaN, false));
            pairs.add(new MeasuredPair(a, a, g, 0.6, 0.6, Double.NaN, false));
        }
        MeasuredTruth truth = new MeasuredTruth("crashes", pairs, ContentionFallback.standard());
        CompatibilityModel believesEveryPairFits = new CompatibilityModel() {
            @Override public String name() { return "optimist"; }

            @Override public PairPrediction predict(JobProfile x, JobProfile y) { return new PairPrediction(0.85, 0.85, 0, "optimist"); }
        };
        SplittableRandom rnd = new SplittableRandom(11);
        List<Job> jobs = new ArrayList<>();
        WorkloadSignature[] sigs = {a, b, c};
        double t = 0;
        for (int i = 0; i < 150; i++) {
            t += rnd.nextDouble() * 900;
            WorkloadSignature sig = sigs[rnd.nextInt(3)];
            int gpus = new int[] {1, 1, 1, 2, 4}[rnd.nextInt(5)];
            jobs.add(new Job("j" + i, "u", t, gpus, sig, profiles.get(sig).soloSpeed() * (600 + rnd.nextInt(20_000)), (long) profiles.get(sig).gmemMiB(), 0));
        }
        Totals totals = compareEveryPolicy(SimConfig.defaults(), Cluster.parse("2x4:RTX3090-24GB"), profiles, truth, jobs, () -> believesEveryPairFits);
        assertThat(totals.ooms).as("out-of-memory crashes").isGreaterThanOrEqualTo(5);
    }

    private static final class Totals {
        int ooms, pairings, preemptions;
    }

    /** @param oracle a new oracle for each run: one that learns online must not carry what it learned into the next */
    private static Totals compareEveryPolicy(SimConfig cfg, Cluster cluster, ProfileStore profiles, InterferenceTruth truth, List<Job> jobs,
                                             java.util.function.Supplier<CompatibilityModel> oracle) {
        Totals t = new Totals();
        for (String name : PolicyCatalog.names()) {
            SimulationResult followed = run(cfg, cluster, profiles, truth, jobs, oracle.get(), PolicyCatalog.create(name));
            SimulationResult rebuilt = run(cfg, cluster, profiles, truth, jobs, oracle.get(), new WithoutJournals(PolicyCatalog.create(name)));
            assertThat(followed.decisions()).as(name).isEqualTo(rebuilt.decisions());
            assertThat(followed.jobs()).as(name).isEqualTo(rebuilt.jobs());
            t.ooms += followed.metrics().oom_events();
            t.pairings += followed.metrics().pairings();
            t.preemptions += followed.metrics().preemptions();
        }
        return t;
    }

    private static SimulationResult run(SimConfig cfg, Cluster cluster, ProfileStore profiles, InterferenceTruth truth, List<Job> jobs,
                                        CompatibilityModel oracle, Policy policy) {
        Simulator sim = new Simulator(cfg, cluster, profiles, truth, Recording.DEFAULT.withDecisions(Integer.MAX_VALUE));
        return sim.run(jobs, policy, oracle, ProgressListener.NONE);
    }
}
