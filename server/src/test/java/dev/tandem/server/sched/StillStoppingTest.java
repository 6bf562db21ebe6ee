package dev.tandem.server.sched;

import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.testing.AfterJobOneStarts;
import dev.tandem.server.testing.ScriptedLoop;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run takes its time to checkpoint and exit, and the policy is shown it running until then: a later decision that
 * suspends or moves it is carried out once it has exited, as the simulator (whose stops take no time) would have
 * carried out that decision about the job, not dropped in favour of what the earlier decision said.
 */
class StillStoppingTest {
    static final WorkloadSignature KNOWN = new WorkloadSignature("ResNet18", "CIFAR-10", 32, false);

    @TempDir Path dir;

    /** A one-GPU job whose process ignores SIGTERM: it stays on its GPU until the executor kills it after its grace time. */
    static NewJob slowToStop() {
        return new NewJob("t", List.of("sh", "-c", "trap '' TERM; sleep 5"), Map.of(), System.getProperty("java.io.tmpdir"), 1, 0, null, KNOWN, null,
                JobControls.NONE);
    }

    @Test
    void aRunBeingSuspendedThatALaterDecisionMovesStartsWhereThatDecisionSays() throws Exception {
        Policy policy = new AfterJobOneStarts(List.of(new Decision.Preempt("1", "make room")), List.of(new Decision.Migrate("1", List.of(1), "over there")));
        try (ScriptedLoop daemon = ScriptedLoop.start(dir, policy, new ServerMetrics(), 300, ProfileReader.read(DataSource.LUCID_PROFILES, 0), List.of(slowToStop()))) {
            TestApi.await(Duration.ofSeconds(20), "job 1 to start again", () -> daemon.store().job(1).orElseThrow().attempts() == 2);
            JobRecord job = daemon.store().job(1).orElseThrow();
            assertThat(job.gpuIds()).as("on the GPU the later decision moved it to").containsExactly(1);
            assertThat(daemon.notedAt(1, "moving to GPU(s) 1 instead: over there")).isGreaterThan(daemon.notedAt(1, "preempted: make room"));
            assertThat(daemon.refusals(1)).isEmpty();
        }
    }

    @Test
    void aRunBeingMovedThatALaterDecisionSuspendsWaits() throws Exception {
        Policy policy = new AfterJobOneStarts(List.of(new Decision.Migrate("1", List.of(1), "over there")), List.of(new Decision.Preempt("1", "make room")));
        try (ScriptedLoop daemon = ScriptedLoop.start(dir, policy, new ServerMetrics(), 300, ProfileReader.read(DataSource.LUCID_PROFILES, 0), List.of(slowToStop()))) {
            TestApi.await(Duration.ofSeconds(20), "job 1's run to exit (and, had the move stood, the job to start on GPU 1)", () -> {
                var live = daemon.loop().live().job(1);
                return daemon.store().job(1).orElseThrow().attempts() == 2 || live != null && live.queuePosition() != null;
            });
            Thread.sleep(1000); // a start that came after the exit would be there by now
            assertThat(daemon.notedAt(1, "suspended instead of moved: make room")).isGreaterThan(daemon.notedAt(1, "migrating to GPU(s) 1: over there"));
            JobRecord job = daemon.store().job(1).orElseThrow();
            assertThat(job.state()).isEqualTo(JobState.SUSPENDED);
            assertThat(job.attempts()).isEqualTo(1);
            assertThat(daemon.refusals(1)).isEmpty();
        }
    }
}
