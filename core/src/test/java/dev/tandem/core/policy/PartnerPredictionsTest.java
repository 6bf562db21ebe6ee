package dev.tandem.core.policy;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A policy asking about many partners of one job through {@link SchedulerSnapshot#predictionsWith} gets what
 * {@link SchedulerSnapshot#predict} gives, from the same memo: the oracle is asked once per ordered signature pair and
 * gang size, whichever way the question came.
 */
class PartnerPredictionsTest {
    private final WorkloadSignature a = new WorkloadSignature("A", "d", 32, false), b = new WorkloadSignature("B", "d", 32, false),
            c = new WorkloadSignature("C", "d", 32, false), unprofiled = new WorkloadSignature("U", "d", 32, false);
    /** What the oracle was asked, as "first>second@gpus". */
    private final List<String> asked = new ArrayList<>();
    private final CompatibilityModel oracle = new CompatibilityModel() {
        @Override public String name() { return "recording"; }

        @Override public PairPrediction predict(JobProfile x, JobProfile y) { return predict(x, y, 1); }

        @Override public PairPrediction predict(JobProfile x, JobProfile y, int gpus) {
            asked.add(x.signature().model() + ">" + y.signature().model() + "@" + gpus);
            // speeds that tell the pair and its order apart
            return new PairPrediction(x.soloSpeed() / 10, y.soloSpeed() / 10, 0.01 * gpus, "recorded");
        }
    };

    private SchedulerSnapshot snapshot() {
        ProfileStore profiles = new ProfileStore();
        profiles.put(profile(a, 5));
        profiles.put(profile(b, 7));
        profiles.put(profile(c, 9));
        Cluster cluster = Cluster.homogeneous(1, 4, new GpuType("T", 24_576), 8, 1 << 16);
        return new SchedulerSnapshot(0, cluster, List.of(), List.of(), profiles, oracle, new MemoryRule(0), Map.of(), Set.of());
    }

    private static JobProfile profile(WorkloadSignature sig, double speed) {
        return new JobProfile(sig, speed, 50, 20, 4_000, 0.4, 0.3, 0);
    }

    private static Job job(String id, WorkloadSignature sig, int gpus) {
        return new Job(id, "u", 0, gpus, sig, 1_000, 4_000, 0);
    }

    @Test
    void aRowAnswersAsPredictAndSharesItsMemo() {
        SchedulerSnapshot s = snapshot();
        Job a1 = job("a1", a, 1), a2 = job("a2", a, 1), b1 = job("b1", b, 1), c1 = job("c1", c, 1);
        SchedulerSnapshot.PartnerPredictions withA = s.predictionsWith(a1);

        PairPrediction ab = withA.predict(b1);
        assertThat(ab.speedA()).isEqualTo(0.5);
        assertThat(ab.speedB()).isEqualTo(0.7);
        assertThat(withA.predict(c1).speedB()).isEqualTo(0.9);
        // another job of the same workload reads the same row; predict() reads it too
        assertThat(s.predictionsWith(a2).predict(b1)).isSameAs(ab);
        assertThat(s.predict(a1, b1)).isSameAs(ab);
        assertThat(asked).containsExactly("A>B@1", "A>C@1");

        // the other order is its own question (speeds swap), asked once
        PairPrediction ba = s.predictionsWith(b1).predict(a1);
        assertThat(ba.speedA()).isEqualTo(0.7);
        assertThat(s.predict(b1, a2)).isSameAs(ba);
        assertThat(asked).containsExactly("A>B@1", "A>C@1", "B>A@1");
    }

    @Test
    void gangSizesHaveRowsOfTheirOwnAndAJobWithoutAProfileGetsNoPrediction() {
        SchedulerSnapshot s = snapshot();
        PairPrediction one = s.predictionsWith(job("a1", a, 1)).predict(job("b1", b, 1));
        PairPrediction two = s.predictionsWith(job("a2", a, 2)).predict(job("b2", b, 2));
        assertThat(two.uncertainty()).isEqualTo(0.02);
        assertThat(two).isNotEqualTo(one);
        assertThat(asked).containsExactly("A>B@1", "A>B@2");

        assertThat(s.predictionsWith(job("a3", a, 1)).predict(job("u", unprofiled, 1)).known()).isFalse();
        assertThat(s.predictionsWith(job("u", unprofiled, 1)).predict(job("a4", a, 1)).known()).isFalse();
        assertThat(asked).hasSize(2); // no profile, no question
    }
}
