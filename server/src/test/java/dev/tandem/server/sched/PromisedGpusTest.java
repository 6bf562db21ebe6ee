package dev.tandem.server.sched;

import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.JobEvent;
import dev.tandem.server.store.JobState;
import dev.tandem.server.testing.AfterJobOneStarts;
import dev.tandem.server.testing.ScriptedLoop;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job promised GPUs that runs being stopped still hold is on them for the rules from the decision on, as it will
 * run there: a job placed beside one that must run alone (a new workload, profiled alone first) is refused by that
 * same decision, not a round later when the promise is kept.
 */
class PromisedGpusTest {
    static final WorkloadSignature KNOWN = new WorkloadSignature("ResNet18", "CIFAR-10", 32, false);
    static final WorkloadSignature NEW = new WorkloadSignature("NewNet", "CIFAR-10", 32, false);

    @TempDir Path dir;

    @Test
    void aJobPlacedBesideAPromisedJobThatMustRunAloneIsRefusedByThatDecision() throws Exception {
        // job 1 starts on GPU 0; once it runs, it is suspended and job 2 (a new workload) and then job 3 start on GPU 0
        try (ScriptedLoop daemon = ScriptedLoop.start(dir, new AfterJobOneStarts(List.of(new Decision.Preempt("1", "make room"), new Decision.Start("2", List.of(0), "there"),
                new Decision.Start("3", List.of(0), "beside"))), new ServerMetrics(), 300, ProfileReader.read(DataSource.LUCID_PROFILES, 0),
                List.of(ScriptedLoop.sleeping(1, 2, KNOWN), ScriptedLoop.sleeping(1, 2, NEW), ScriptedLoop.sleeping(1, 2, KNOWN)))) {
            TestApi.await(Duration.ofSeconds(20), "job 3's start to be refused", () -> !daemon.refusals(3).isEmpty());
            JobEvent refused = daemon.refusals(3).getFirst();
            assertThat(refused.reason()).isEqualTo("decision refused (start on GPU(s) 0): job 2 must run alone (" + Context.NOT_PROFILED + ")");
            assertThat(refused.at()).as("refused by the decision that promised job 2 the GPU").isEqualTo(daemon.notedAt(1, "preempted: make room"));
            TestApi.await(Duration.ofSeconds(20), "job 2 to be profiled and succeed", () -> daemon.store().job(2).orElseThrow().state() == JobState.SUCCEEDED);
        }
    }
}
