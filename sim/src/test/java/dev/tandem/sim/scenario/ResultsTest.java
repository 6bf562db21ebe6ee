package dev.tandem.sim.scenario;

import dev.tandem.core.compat.KernelRegressionModel;
import dev.tandem.core.compat.LeaveOneModelOut;
import dev.tandem.core.compat.PairObservation;
import dev.tandem.core.compat.UtilSumModel;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.data.DataSource;
import dev.tandem.data.TrainingPairs;
import dev.tandem.data.ProfileReader;
import dev.tandem.sim.engine.Knowledge;
import dev.tandem.sim.engine.Metrics;
import dev.tandem.sim.engine.ProgressListener;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The project's headline claims, checked on bundled data (small enough to run in the test suite). */
class ResultsTest {
    @Test
    void learnedModelGeneralisesBetterThanTheUtilisationSumToUnseenModels() {
        ProfileStore store = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0));
        List<PairObservation> obs = TrainingPairs.load(DataSource.LUCID_PAIRS, store, "v100");
        LeaveOneModelOut.Result knn = LeaveOneModelOut.evaluate(obs, KernelRegressionModel::fit);
        LeaveOneModelOut.Result base = LeaveOneModelOut.evaluate(obs, UtilSumModel::fit);
        assertThat(knn.rows()).hasSize(8);
        assertThat(knn.maePerJob()).isLessThan(base.maePerJob() * 0.95);
        assertThat(base.pearsonCombined()).isBetween(0.0, 1.0); // util-sum: one speed for both jobs, still positive with the truth
    }

    @Test
    void tandemBeatsFifoAndEveryPeerWithoutCrashes() {
        Scenario s = ScenarioFixtures.lucid(200, "batch", 1);
        Map<String, Metrics> m = new HashMap<>();
        for (String p : List.of("fifo", "fifo-packed", "gavel-packed", "lucid", "gandiva", "tandem")) m.put(p, s.run(p, ProgressListener.NONE).metrics());
        double tandem = m.get("tandem").makespan_s();
        assertThat(m.get("fifo").makespan_s() / tandem).isGreaterThan(1.8);
        for (String peer : List.of("fifo-packed", "gavel-packed", "lucid", "gandiva")) assertThat(tandem).as(peer).isLessThan(m.get(peer).makespan_s());
        assertThat(m.get("tandem").oom_events()).isZero();
        assertThat(tandem).isLessThan(1.10 * s.lowerBound().makespanS());
    }

    /**
     * Issue 15's knowledge targets on the demo, as the issue sets them: the share of tandem's exact-length gain over FIFO
     * (makespan hours saved) it keeps when lengths are seen through a log-normal error of sigma 1 (97% asked; measured
     * 98.1% since a job of unknown length reaches its latest start by the service it has had, 99.3% before) and when no
     * length is known (95% asked; measured 97.1%, 94.98% before), and that it stays ahead of every peer run with the same
     * knowledge. Before tandem learned to stop trusting far-off lengths and took turns by attained service the shares
     * were 88% and 95%.
     */
    @Test
    void tandemKeepsMostOfItsGainWithoutExactLengths() {
        ScenarioSpec base = ScenarioFixtures.lucid(200, "batch", 1).spec();
        Map<String, Metrics> exact = new HashMap<>();
        for (String p : List.of("fifo", "tandem")) exact.put(p, ScenarioFixtures.lucid(200, "batch", 1).run(p, ProgressListener.NONE).metrics());
        double fifo = exact.get("fifo").makespan_s(), gain = fifo - exact.get("tandem").makespan_s();
        Map<Knowledge, Double> floor = Map.of(Knowledge.noisy(1), 0.97, Knowledge.NONE, 0.95);
        for (Knowledge k : List.of(Knowledge.noisy(1), Knowledge.NONE)) {
            Scenario s = Scenario.load(new ScenarioSpec(base.profiles(), base.truth(), base.train(), base.gavelGpu(), base.model(), base.online(),
                    base.cluster(), base.workload(), base.sim().withKnowledge(k, 1), base.tandem()));
            double tandem = s.run("tandem", ProgressListener.NONE).metrics().makespan_s();
            assertThat((fifo - tandem) / gain).as(k.toString()).isGreaterThanOrEqualTo(floor.get(k));
            for (String peer : List.of("fifo-packed", "gavel-packed", "lucid", "gandiva")) {
                assertThat(tandem).as(k + " " + peer).isLessThan(s.run(peer, ProgressListener.NONE).metrics().makespan_s());
            }
        }
    }

    @Test
    void theHeadlineMixRunsOnlyOnMeasuredPairsAndTheFullMixSaysHowMuchIsNot() {
        Scenario measured = ScenarioFixtures.lucid(200, "batch", 1);
        assertThat(measured.spec().workload().mix()).isEqualTo(dev.tandem.sim.workload.ProfileMix.MEASURED);
        java.util.Set<String> withheld = java.util.Set.of("BERT", "ResNet50", "Transformer"); // Lucid measured no pair of these
        assertThat(measured.jobs()).noneMatch(j -> withheld.contains(j.signature().model()));
        Metrics t = measured.run("tandem", ProgressListener.NONE).metrics();
        assertThat(t.gpu_shared_fraction()).isGreaterThan(0.5);
        assertThat(t.unmeasured_shared_fraction()).isZero();

        ScenarioSpec base = measured.spec();
        Scenario all = Scenario.load(new ScenarioSpec(base.profiles(), base.truth(), base.train(), base.gavelGpu(), base.model(), base.online(),
                base.cluster(), base.workload().withMix(dev.tandem.sim.workload.ProfileMix.ALL), base.sim(), base.tandem()));
        assertThat(all.jobs()).anyMatch(j -> withheld.contains(j.signature().model()));
        assertThat(all.run("tandem", ProgressListener.NONE).metrics().unmeasured_shared_fraction()).isBetween(0.05, 0.95);
    }

    @Test
    void thePolicyStillWinsWhenHalfTheModelsWereNeverSeenPaired() {
        ScenarioSpec base = ScenarioFixtures.lucid(200, "batch", 1).spec();
        Scenario heldOut = Scenario.load(new ScenarioSpec(base.profiles(), base.truth(), base.train(), base.gavelGpu(), base.model(), base.online(),
                base.cluster(), base.workload(), base.sim(), base.tandem(), null, java.util.Set.of("DCGAN", "LSTM", "MobileNetV3", "ResNet18")));
        assertThat(heldOut.training().size()).isLessThan(ScenarioFixtures.lucid(200, "batch", 1).training().size() / 2);
        Metrics fifo = heldOut.run("fifo", ProgressListener.NONE).metrics();
        Metrics packed = heldOut.run("fifo-packed", ProgressListener.NONE).metrics();
        Metrics tandem = heldOut.run("tandem", ProgressListener.NONE).metrics();
        assertThat(fifo.makespan_s() / tandem.makespan_s()).isGreaterThan(1.65);
        assertThat(tandem.makespan_s()).isLessThan(packed.makespan_s());
        assertThat(tandem.oom_events()).isZero();
    }

    @Test
    void gavelWorkloadsRunWithGangs() {
        Scenario s = ScenarioFixtures.gavel(80, "1:0.7,2:0.1,4:0.15,8:0.05", "2x8:V100-16GB", 3);
        Metrics fifo = s.run("fifo", ProgressListener.NONE).metrics();
        Metrics tandem = s.run("tandem", ProgressListener.NONE).metrics();
        assertThat(tandem.jobs_completed()).isEqualTo(80);
        assertThat(tandem.oom_events()).isZero();
        assertThat(tandem.makespan_s()).isLessThan(fifo.makespan_s());
    }
}
