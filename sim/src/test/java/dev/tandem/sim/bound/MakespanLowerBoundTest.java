package dev.tandem.sim.bound;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.MeasuredPair;
import dev.tandem.sim.engine.ProgressListener;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.sim.scenario.ScenarioFixtures;
import dev.tandem.data.truth.ContentionFallback;
import dev.tandem.data.truth.MeasuredTruth;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class MakespanLowerBoundTest {
    static final WorkloadSignature A = new WorkloadSignature("A", "d", 32, false);
    static final Cluster ONE = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);

    @Test
    void twoIdenticalJobsThatPairAtPointEightEach() {
        // W = 1000 s each; paired both run at 0.8: 2000 / 1.6 = 1250 s on one GPU
        ProfileStore ps = new ProfileStore(List.of(JobProfile.basic(A, 10, 30, 10, 1000)));
        MeasuredTruth t = new MeasuredTruth("t", List.of(new MeasuredPair(A, A, 1, 0.8, 0.8, Double.NaN, false)), ContentionFallback.standard());
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 10_000, 1000, 0), new Job("b", "u", 0, 1, A, 10_000, 1000, 0));
        MakespanLowerBound.Bound b = MakespanLowerBound.compute(jobs, ps, t, ONE);
        assertThat(b.lpMakespanS()).isCloseTo(1250, within(1e-3));
        assertThat(b.makespanS()).isCloseTo(1250, within(1e-3));
    }

    @Test
    void pairsThatDoNotFitOrDoNotPayAreSolo() {
        ProfileStore ps = new ProfileStore(List.of(JobProfile.basic(A, 10, 30, 10, 13_000)));
        MeasuredTruth t = new MeasuredTruth("t", List.of(new MeasuredPair(A, A, 1, 0.8, 0.8, Double.NaN, false)), ContentionFallback.standard());
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 10_000, 13_000, 0), new Job("b", "u", 0, 1, A, 10_000, 13_000, 0));
        assertThat(MakespanLowerBound.compute(jobs, ps, t, ONE).makespanS()).isCloseTo(2000, within(1e-3)); // 26 GB > 24 GB
    }

    @Test
    void theLongestJobBoundsTheMakespan() {
        ProfileStore ps = new ProfileStore(List.of(JobProfile.basic(A, 10, 30, 10, 1000)));
        MeasuredTruth t = new MeasuredTruth("t", List.of(), ContentionFallback.standard());
        List<Job> jobs = List.of(new Job("a", "u", 0, 1, A, 50_000, 1000, 0), new Job("b", "u", 100, 1, A, 10, 1000, 0));
        Cluster many = Cluster.homogeneous(1, 8, new GpuType("T", 24576), 8, 1 << 16);
        MakespanLowerBound.Bound b = MakespanLowerBound.compute(jobs, ps, t, many);
        assertThat(b.longestJobS()).isCloseTo(5000, within(1e-6));
        assertThat(b.makespanS()).isCloseTo(5000, within(1e-6));
    }

    @Test
    void noPolicyBeatsTheBound() {
        Scenario s = ScenarioFixtures.lucid(60, "batch", 11);
        double bound = s.lowerBound().makespanS();
        for (String p : List.of("fifo", "fifo-packed", "lucid", "gandiva", "tandem", "srtf")) {
            assertThat(s.run(p, ProgressListener.NONE).metrics().makespan_s()).as(p).isGreaterThanOrEqualTo(bound * (1 - 1e-6));
        }
    }
}
