package dev.tandem.sim.trace;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class TraceJobsTest {
    static final WorkloadSignature SIG = new WorkloadSignature("M", "D", 32, false);
    static final JobProfile PROFILE = JobProfile.basic(SIG, 2.5, 50, 20, 3000.4);
    static final ProfileAssigner ONE = ProfileAssigner.seeded(List.of(PROFILE), 0);

    @Test
    void iterationsAreTheTracesDurationAtSoloSpeed() {
        List<Job> jobs = TraceJobs.toJobs(List.of(TraceRecord.timed("a", "alice", "vc", 5, 4, 100, "")), ONE);
        assertThat(jobs).containsExactly(new Job("a", "alice", 5, 4, SIG, 250, 3000, 0));
    }

    @Test
    void gavelStepsAreTheIterations() {
        TraceRecord steps = new TraceRecord("0", "", "", 0, 1, Double.NaN, 58000, "X", 1.0);
        assertThat(TraceJobs.toJobs(List.of(steps), ONE).get(0).totalIterations()).isEqualTo(58000);
        JobProfile noMemory = JobProfile.basic(SIG, 1, Double.NaN, Double.NaN, Double.NaN);
        assertThat(TraceJobs.toJobs(List.of(steps), ProfileAssigner.seeded(List.of(noMemory), 0)).get(0).memoryMiB()).isZero();
    }

    @Test
    void aGavelGangRunsAtGavelsThroughputForItsScale() {
        // Gavel, V100: ResNet-18 bs64 does 24.1 steps/s on one GPU and 95.6 on four (simulation_throughputs.json)
        var gavel = dev.tandem.data.GavelThroughputReader.read(DataSource.GAVEL_THROUGHPUTS, "v100");
        JobProfile resnet = gavel.profiles().stream().filter(p -> p.signature().label().startsWith("ResNet-18/") && p.signature().batchSize() == 64)
                .findFirst().orElseThrow();
        ProfileAssigner assigner = ProfileAssigner.forGavel(gavel, 0);
        TraceRecord four = new TraceRecord("0", "", "", 0, 4, Double.NaN, 100_000, "ResNet-18 (batch size 64)", 1.0);
        TraceRecord one = new TraceRecord("1", "", "", 0, 1, Double.NaN, 100_000, "ResNet-18 (batch size 64)", 1.0);
        List<Job> jobs = TraceJobs.toJobs(List.of(four, one), assigner);
        assertThat(jobs).extracting(Job::signature).containsOnly(resnet.signature());
        double speedup = gavel.gangSpeedup(resnet.signature(), 4);
        assertThat(speedup).isBetween(3.9, 4.0); // 95.6 / 24.1 = 3.97
        // solo run time = work / profile speed: the 4-GPU gang takes 100,000 / 95.6 s, the single GPU 100,000 / 24.1 s
        assertThat(jobs.get(0).totalIterations() / resnet.soloSpeed()).isCloseTo(100_000 / (resnet.soloSpeed() * speedup), within(1e-6));
        assertThat(jobs.get(1).totalIterations()).isEqualTo(100_000);
        assertThat(jobs.get(1).totalIterations() / jobs.get(0).totalIterations()).isCloseTo(speedup, within(1e-9));
    }

    @Test
    void idsAreMadeUnique() {
        List<TraceRecord> rs = List.of(TraceRecord.timed("a", "", "", 0, 1, 1, ""), TraceRecord.timed("a", "", "", 1, 1, 1, ""),
                TraceRecord.timed("a-2", "", "", 2, 1, 1, ""), TraceRecord.timed("a", "", "", 3, 1, 1, ""));
        assertThat(TraceJobs.toJobs(rs, ONE)).extracting(Job::id).containsExactly("a", "a-2", "a-2-2", "a-3");
    }

    @Test
    void limitAndTimeWindow() {
        List<TraceRecord> rs = List.of(10, 50, 100, 150, 199, 200, 300).stream()
                .map(t -> TraceRecord.timed("j" + t, "", "", t, 1, 10, "")).toList();
        assertThat(TraceJobs.toJobs(rs, ONE, TraceJobs.Options.first(2))).extracting(Job::id).containsExactly("j10", "j50");
        List<Job> window = TraceJobs.toJobs(rs, ONE, TraceJobs.Options.ALL.window(100, 200));
        assertThat(window).extracting(Job::id).containsExactly("j100", "j150", "j199");
        assertThat(window).extracting(Job::submitTime).containsExactly(0.0, 50.0, 99.0);
        assertThat(TraceJobs.toJobs(rs, ONE, TraceJobs.Options.first(2).window(100, 1000))).extracting(Job::id).containsExactly("j100", "j150");
        assertThatThrownBy(() -> TraceJobs.Options.ALL.window(5, 5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aGangNoProfileSupportsIsAnError() {
        ProfileAssigner small = ProfileAssigner.seeded(List.of(PROFILE), (p, size) -> size <= 8, 0);
        assertThatThrownBy(() -> TraceJobs.toJobs(List.of(TraceRecord.timed("big", "", "", 0, 16, 10, "")), small))
                .hasMessageContaining("big").hasMessageContaining("16 GPUs");
    }

    @Test
    void aRealTraceBecomesJobs() {
        TraceReadResult r = PolluxPhillyCsvReader.read(TraceFixtures.shared("philly/philly_jobs.csv"), BadRows.REJECT);
        List<JobProfile> lucid = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        ProfileAssigner assigner = ProfileAssigner.seeded(lucid, 42);
        List<Job> jobs = TraceJobs.toJobs(r.records(), assigner, TraceJobs.Options.first(1000));
        assertThat(jobs).hasSize(1000);
        assertThat(jobs.stream().map(Job::id).collect(java.util.stream.Collectors.toSet())).hasSize(1000);
        for (int i = 0; i < jobs.size(); i++) {
            Job j = jobs.get(i);
            TraceRecord t = r.records().get(i);
            JobProfile p = assigner.assign(t).orElseThrow();
            assertThat(j.totalIterations()).isCloseTo(t.durationS() * p.soloSpeed(), within(1e-6));
            assertThat(j.submitTime()).isEqualTo(t.submitTime());
            assertThat(j.user()).isEqualTo(t.user());
            assertThat(j.memoryMiB()).isEqualTo(Math.round(p.gmemMiB()));
        }
        assertThat(new HashSet<>(jobs.stream().map(Job::signature).toList())).hasSizeGreaterThan(40);
    }
}
