package dev.tandem.server.sched;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import dev.tandem.server.exec.simulated.SimulatedExecutor;
import dev.tandem.server.exec.simulated.SimulatedSettings;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.Database;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.JobEvent;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job's history reads in time order also where one round starts a job and pairs another with it: the round takes
 * time (about 30 ms for the first one of a daemon, measured), a run's start is recorded when it starts, and the pair
 * formed then too, not when the round began, or the host's history showed it paired before it started.
 */
class HistoryOrderTest {
    static final WorkloadSignature RESNET = new WorkloadSignature("ResNet18", "CIFAR-10", 32, false);

    @TempDir Path dir;

    @Test
    void aHostStartedAndPairedInOneRoundShowsItsStartBeforeItsPairing() throws Exception {
        // a clock that moves on at every reading, as the wall clock does while a round works
        AtomicLong millis = new AtomicLong(1_000_000);
        InstantSource ticking = new InstantSource() {
            @Override public long millis() { return millis.getAndAdd(5); }

            @Override public Instant instant() { return Instant.ofEpochMilli(millis()); }
        };
        Path state = dir.resolve("state");
        List<JobProfile> known = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        try (Store store = new Store(Database.open(null, state));
             SimulatedExecutor executor = SimulatedExecutor.withBundledData(state, new SimulatedSettings("1x2:RTX3090-24GB", 60), ticking::millis)) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                ids.add(store.insertJob(new NewJob("r" + i, List.of("train.py"), Map.of(), "/tmp", 1, 0, 5_000_000L, RESNET, null, JobControls.NONE),
                        "admin", millis.get()).id());
            }
            SchedulerLoop loop = new SchedulerLoop(store, executor, executor.discoverGpus(), Oracle.build(store, "auto"), new GpuMonitor(),
                    new ServerMetrics(), PolicyCatalog.create("tandem"), new SchedulerConfig(100, 1000, 1000, 1000, 3, 512), known, ticking);
            loop.startInVirtualTime();
            loop.step();

            // the round started two jobs and paired the other two with them
            assertThat(ids.stream().map(id -> store.job(id).orElseThrow().state()).toList())
                    .containsExactlyInAnyOrder(JobState.PAIRED, JobState.PAIRED, JobState.PAIRED, JobState.PAIRED);
            for (long id : ids) {
                List<JobEvent> events = store.events(id);
                for (int i = 1; i < events.size(); i++) {
                    assertThat(events.get(i).at()).as("job %d: %s after %s", id, events.get(i), events.get(i - 1))
                            .isGreaterThanOrEqualTo(events.get(i - 1).at());
                }
            }
        }
    }
}
