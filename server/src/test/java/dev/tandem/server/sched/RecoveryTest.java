package dev.tandem.server.sched;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.Database;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;
import dev.tandem.server.testing.FakeGpuHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A restarted daemon takes back the runs its store says hold GPUs into the runtime's ledger of placements, even
 * where a GPU then holds more than two (a store no daemon of ours wrote so, but the processes are there): it places
 * nothing more beside them.
 */
class RecoveryTest {
    static final WorkloadSignature RESNET = new WorkloadSignature("ResNet18", "CIFAR-10", 32, false);

    @TempDir Path dir;

    @Test
    void runsFoundOnAGpuAreAllAdoptedEvenBeyondTheLimitAndNothingMoreIsPlacedThere() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        List<JobProfile> profiles = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        try (Store store = new Store(Database.open(null, state));
             LocalExecutor executor = new LocalExecutor(state, host.tools(), Sharing.TIME_SLICING, 2000, 50)) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            long[] ids = new long[3];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, 1_000L, RESNET, null, JobControls.NONE), "admin", 0).id();
                // on GPU 0 in its first attempt; its process ended while no daemon watched (its exit status is on disk)
                assertThat(store.transition(ids[i], JobState.QUEUED, i == 0 ? JobState.RUNNING : JobState.PAIRED, Context.ACTOR, "test",
                        new Change().add(Change.Column.ATTEMPTS, 1).set(Change.Column.GPU_IDS, Store.gpuIds(List.of(0))).set(Change.Column.STARTED_AT, 1L), 1)).isTrue();
                Path jobDir = LocalExecutor.jobDir(state, ids[i]);
                Files.createDirectories(jobDir);
                Files.writeString(jobDir.resolve("exit-1"), "0\n");
            }
            Context ctx = new Context(store, executor, executor.discoverGpus(), Oracle.build(store, "auto"), new GpuMonitor(), new ServerMetrics(),
                    new SchedulerConfig(100, 1000, 1000, 1000, 3, 512), profiles, java.time.InstantSource.system(),
                    new dev.tandem.core.policies.FifoPolicy());
            new Recovery(ctx).run(2);

            assertThat(ctx.runs.keysOn(0)).containsExactly(ids[0], ids[1], ids[2]);
            assertThat(ctx.runs.sharedGpus()).isEqualTo(1);
            assertThat(ctx.runs.get(ids[2]).partner).as("paired with the first it found there").isEqualTo(ids[0]);
            assertThatThrownBy(() -> ctx.runs.place(new Run(99, RESNET, 1, List.of(0), 3), List.of(0))).isInstanceOf(IllegalStateException.class);
            assertThat(ctx.runs.on(1)).isEmpty();
        }
    }
}
