package dev.tandem.server.sched;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.simulated.SimulatedExecutor;
import dev.tandem.server.exec.simulated.SimulatedSettings;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.Database;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;
import dev.tandem.server.testing.FakeGpuHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What the policy is told of a job's length: the iterations left while the job is within what it declared; past that
 * (its progress lines count more iterations than its {@code --iterations}) it is a job of unknown length, as in the
 * simulator, and not one iteration from its end for ever.
 */
class SnapshotBuilderTest {
    static final WorkloadSignature RESNET = new WorkloadSignature("ResNet18", "CIFAR-10", 32, false);

    @TempDir Path dir;

    @Test
    void aJobPastTheIterationsItDeclaredIsOfUnknownLength() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        List<JobProfile> profiles = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        double solo = new ProfileStore(profiles).find(RESNET).orElseThrow().soloSpeed();
        try (Store store = new Store(Database.open(null, state));
             LocalExecutor executor = new LocalExecutor(state, host.tools(), Sharing.TIME_SLICING, 2000, 50)) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            Context ctx = context(store, executor, profiles);
            SnapshotBuilder snapshots = new SnapshotBuilder(ctx);
            long id = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, 1_000L, RESNET, null, JobControls.NONE), "admin", 0).id();

            store.update(id, new Change().set(Change.Column.PROGRESS_ITER, 400L), 1);
            PendingJob within = snapshots.pending(job(store, id));
            assertThat(within.lengthKnown()).isTrue();
            assertThat(within.remainingIterations()).isEqualTo(600);
            store.update(id, new Change().set(Change.Column.PROGRESS_ITER, 1_000L), 2);
            assertThat(snapshots.pending(job(store, id)).remainingIterations()).as("at its last iteration").isEqualTo(1);

            store.update(id, new Change().set(Change.Column.PROGRESS_ITER, 1_500L), 3);
            PendingJob past = snapshots.pending(job(store, id));
            assertThat(past.lengthKnown()).isFalse();
            // as long as it has run, at least 10 minutes, at its solo speed
            assertThat(past.remainingIterations()).isEqualTo(SchedulerSnapshot.UNKNOWN_LENGTH_FLOOR_SECONDS * solo);

            // the same for a running job, from the progress its run reported
            Run run = new Run(id, RESNET, 1, List.of(0), 0);
            ctx.runs.place(run, run.gpus);
            run.meter.add(1_000, 900);
            assertThat(running(snapshots, store, id).lengthKnown()).isTrue();
            assertThat(running(snapshots, store, id).remainingIterations()).isEqualTo(100);
            run.meter.add(2_000, 1_200);
            RunningJob outran = running(snapshots, store, id);
            assertThat(outran.lengthKnown()).isFalse();
            assertThat(outran.remainingIterations()).isEqualTo(SchedulerSnapshot.UNKNOWN_LENGTH_FLOOR_SECONDS * solo);
        }
    }

    /**
     * The daemon tells the policies' judge of declared lengths ({@code LengthEstimates}) each job's declared length once,
     * in solo seconds, as it first sees the job: not again at later rounds, and not for a job without {@code
     * --iterations} or of a workload without a known speed.
     */
    @Test
    void eachDeclaredLengthIsCountedOnceAsTheDaemonFirstSeesTheJob() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        List<JobProfile> profiles = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        try (Store store = new Store(Database.open(null, state));
             LocalExecutor executor = new LocalExecutor(state, host.tools(), Sharing.TIME_SLICING, 2000, 50)) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            Context ctx = context(store, executor, profiles);
            WorkloadSignature unknown = new WorkloadSignature("NoSuchModel", "CIFAR-10", 32, false);
            for (int i = 0; i < 5; i++) {
                store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, 1_000L * (i + 1), RESNET, null, JobControls.NONE), "admin", 0);
            }
            store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, null, RESNET, null, JobControls.NONE), "admin", 0);
            store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, 5_000L, unknown, null, JobControls.NONE), "admin", 0);
            ctx.learned.arrivals(store.unfinishedJobs());
            ctx.learned.arrivals(store.unfinishedJobs());
            assertThat(ctx.learned.lengths().declarations()).isEqualTo(5);
            store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, 9_000L, RESNET, null, JobControls.NONE), "admin", 0);
            ctx.learned.arrivals(store.unfinishedJobs());
            assertThat(ctx.learned.lengths().declarations()).isEqualTo(6);
        }
    }

    /**
     * A restarted daemon judges declared lengths as the one before it did: from the store's jobs that declared them,
     * the succeeded ones with the iterations they reported last. Twenty ran three times what they declared (ln 3
     * against a spread of 0.1): not trusted after the restart, and the jobs already seen are not counted again.
     */
    @Test
    void aRestartedDaemonKeepsWhatItLearnedOfDeclaredLengths() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        List<JobProfile> profiles = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        try (Store store = new Store(Database.open(null, state));
             LocalExecutor executor = new LocalExecutor(state, host.tools(), Sharing.TIME_SLICING, 2000, 50)) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            for (int i = 0; i < 20; i++) {
                long declared = 1_000L + 100 * i;
                long id = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, declared, RESNET, null, JobControls.NONE), "admin", 0).id();
                store.transition(id, dev.tandem.server.store.JobState.QUEUED, dev.tandem.server.store.JobState.RUNNING, "scheduler", "idle GPU", Change.none(), 1);
                store.transition(id, dev.tandem.server.store.JobState.ON_GPU, dev.tandem.server.store.JobState.SUCCEEDED, "scheduler", "exit 0",
                        new Change().set(Change.Column.FINISHED_AT, 2L).set(Change.Column.PROGRESS_ITER, 3 * declared), 2);
            }
            store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, 5_000L, RESNET, null, JobControls.NONE), "admin", 3);
            Context ctx = context(store, executor, profiles);
            var lengths = ctx.learned.lengths();
            assertThat(lengths.declarations()).isEqualTo(21);
            assertThat(lengths.samples()).isEqualTo(20);
            assertThat(lengths.rmsLogError()).isCloseTo(Math.log(3), within(1e-9));
            assertThat(lengths.trusted()).isFalse();
            // and /metrics says so from the start, not only after the next job succeeds
            assertThat(ctx.metrics.scrape()).contains("tandem_length_estimate_samples 20.0").contains("tandem_length_estimate_trusted 0.0");
            ctx.learned.arrivals(store.unfinishedJobs());
            assertThat(lengths.declarations()).isEqualTo(21);
        }
    }

    /**
     * A daemon on simulated GPUs under {@code --time-scale 60}: the policy sees the cluster's seconds, as in
     * {@code tandem simulate}. A known workload is planned at the table's speed (per cluster second), so a job of 600
     * table-seconds looks 600 s long from the start; a job that waited 10 s of the daemon's clock has waited 600 s, and
     * one that ran 10 s of it on 2 GPUs has 1,200 GPU-seconds. A suspended job's resume work is the executor's restart
     * overhead (in cluster seconds) at that speed: with speeds per daemon second it was 60 times too much. Without a
     * simulated executor the table's speed and the daemon's seconds stand.
     */
    @Test
    void aTimeScaledDaemonShowsThePolicyTheClustersSeconds() throws Exception {
        List<JobProfile> known = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        double table = new ProfileStore(known).find(RESNET).orElseThrow().soloSpeed();
        Path state = dir.resolve("state");
        try (Store store = new Store(Database.open(null, state))) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            SimulatedSettings settings = new SimulatedSettings("1x2:RTX3090-24GB", 60);
            SimulatedExecutor simulated = SimulatedExecutor.withBundledData(state, settings);
            Context ctx = context(store, simulated, known);
            assertThat(ctx.learned.profiles().find(RESNET).orElseThrow().soloSpeed()).isEqualTo(table);
            assertThat(ctx.learned.measuredSoloSpeed(RESNET)).contains(table);
            long id = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, (long) (table * 600), RESNET, null,
                    JobControls.NONE), "admin", 0).id();
            long resumed = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, (long) (table * 600), RESNET, null,
                    JobControls.NONE), "admin", 0).id();
            store.update(resumed, new Change().set(Change.Column.ATTEMPTS, 1).set(Change.Column.ATTAINED_GPU_MS, 20_000L), 0);
            SnapshotBuilder snapshots = new SnapshotBuilder(ctx);
            long now = 10_000;
            SchedulerSnapshot s = snapshots.build(Map.of(id, job(store, id), resumed, job(store, resumed)),
                    List.of(snapshots.pending(job(store, id)), snapshots.pending(job(store, resumed))), now);
            PendingJob fresh = s.queue().getFirst(), again = s.queue().get(1);
            assertThat(s.now()).isEqualTo(600);
            assertThat(s.expectedSoloSeconds(fresh)).as("a 10-minute job, in the cluster's seconds").isCloseTo(600, within(1e-6));
            assertThat(s.now() - fresh.queuedSince()).as("waited 10 s of the daemon's clock").isCloseTo(600, within(1e-6));
            assertThat(again.attainedGpuSeconds()).as("20 GPU-seconds of the daemon's clock").isCloseTo(1_200, within(1e-6));
            assertThat(s.expectedSoloSeconds(again)).as("its work again plus the restart overhead")
                    .isCloseTo(600 + settings.restartOverheadSeconds(), within(1e-3));
        }
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path local = dir.resolve("local");
        try (Store store = new Store(Database.open(null, local));
             LocalExecutor executor = new LocalExecutor(local, host.tools(), Sharing.TIME_SLICING, 2000, 50)) {
            Context ctx = context(store, executor, known);
            assertThat(ctx.learned.profiles().find(RESNET).orElseThrow().soloSpeed()).isEqualTo(table);
        }
    }

    /**
     * The daemon hands the policy its queue with a journal of how it changed since the last round, as the simulator
     * does, while the queue is in submission order; a round whose queue rules reordered it hands none (the policy
     * rescans), and the journal then takes the next round on from the queue last journalled.
     */
    @Test
    void theQueueComesWithAJournalOfItsChangesWhileItIsInSubmissionOrder() throws Exception {
        List<JobProfile> profiles = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        Path state = dir.resolve("state");
        try (Store store = new Store(Database.open(null, state))) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            SimulatedExecutor simulated = SimulatedExecutor.withBundledData(state, new SimulatedSettings("1x2:RTX3090-24GB", 1));
            SnapshotBuilder snapshots = new SnapshotBuilder(context(store, simulated, profiles));
            List<Long> ids = new java.util.ArrayList<>();
            for (int i = 0; i < 12; i++) {
                ids.add(store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, 1_000L, RESNET, null, JobControls.NONE), "admin", 0).id());
            }
            Map<Long, JobRecord> jobs = new java.util.HashMap<>();
            for (long id : ids) jobs.put(id, job(store, id));
            // ids 1-12: "10" sorts before "2" as text, not in submission order
            List<PendingJob> all = ids.stream().map(id -> snapshots.pending(jobs.get(id))).toList();
            SchedulerSnapshot first = snapshots.build(jobs, all, 1_000);
            assertThat(first.queueJournal()).isNotNull();
            long at = first.queueJournal().count();
            assertThat(at).isEqualTo(12);

            List<PendingJob> later = new java.util.ArrayList<>(all.subList(1, 12)); // the first one started
            ids.forEach(id -> snapshots.pending(jobs.get(id)));
            SchedulerSnapshot second = snapshots.build(jobs, later, 2_000);
            assertThat(second.queueJournal()).isSameAs(first.queueJournal());
            java.util.List<String> left = new java.util.ArrayList<>();
            second.queueJournal().readSince(at, (p, entered) -> { if (!entered) left.add(p.id()); });
            assertThat(left).containsExactly(Long.toString(ids.getFirst()));

            java.util.Collections.reverse(later); // a priority or fair share reordered it
            assertThat(snapshots.build(jobs, later, 3_000).queueJournal()).isNull();
        }
    }

    /** The scheduler's context on {@code executor}'s GPUs, with {@code known} as the known profiles. */
    /**
     * The daemon journals its runs as the simulator journals its jobs: each round hands the policy the runs that started
     * and stopped and those that came to be alone or stopped being so since the last round, in the order the ledger saw
     * them; a run of unknown length (here: one that outran its declared length) is written as reshown at every round
     * (its remaining work is guessed from the service it had, and grows), and a change of what was
     * learned starts new journals, so that a policy following them rebuilds what it kept.
     */
    @Test
    void eachRoundHandsThePolicyTheRunsThatStartedStoppedOrCameToBeAloneSinceTheLast() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        List<JobProfile> profiles = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        try (Store store = new Store(Database.open(null, state));
             LocalExecutor executor = new LocalExecutor(state, host.tools(), Sharing.TIME_SLICING, 2000, 50)) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            Context ctx = context(store, executor, profiles);
            SnapshotBuilder snapshots = new SnapshotBuilder(ctx);
            long[] ids = new long[3];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, 1_000L, RESNET, null, JobControls.NONE), "admin", 0).id();
            }
            Run a = new Run(ids[0], RESNET, 1, List.of(0), 0), b = new Run(ids[1], RESNET, 1, List.of(0), 0), c = new Run(ids[2], RESNET, 1, List.of(1), 0);
            ctx.runs.place(a, a.gpus);
            SchedulerSnapshot first = build(snapshots, store, ids);
            var running = first.runningJournal();
            var alone = first.soleTenantJournal();
            assertThat(running).isNotNull();
            assertThat(alone).isNotNull();
            long runningAt = running.count(), aloneAt = alone.count();

            ctx.runs.place(b, b.gpus); // a is no longer alone
            ctx.runs.place(c, c.gpus);
            ctx.runs.remove(a); // b is alone now
            SchedulerSnapshot second = build(snapshots, store, ids);
            assertThat(second.runningJournal()).isSameAs(running);
            assertThat(read(running, runningAt)).containsExactly("+" + ids[1], "+" + ids[2], "-" + ids[0]);
            assertThat(read(alone, aloneAt)).containsExactly("-" + ids[0], "+" + ids[2], "+" + ids[1]);
            runningAt = running.count();

            b.meter.add(1_000, 1_500); // past the 1,000 iterations it declared
            SchedulerSnapshot third = build(snapshots, store, ids);
            assertThat(third.running()).filteredOn(r -> r.id().equals(Long.toString(ids[1]))).singleElement()
                    .satisfies(r -> assertThat(r.lengthKnown()).isFalse());
            assertThat(read(running, runningAt)).as("written again from the round it outran its length").containsExactly("~" + ids[1]);
            runningAt = running.count();
            build(snapshots, store, ids);
            assertThat(read(running, runningAt)).as("and at every round after: its guessed remaining work grows as it runs")
                    .containsExactly("~" + ids[1]);

            ctx.learned.raiseMemoryEstimate(RESNET, 30_000, 4);
            SchedulerSnapshot fourth = build(snapshots, store, ids);
            assertThat(fourth.runningJournal()).as("new journals once what was learned changed").isNotSameAs(running);
            assertThat(fourth.soleTenantJournal()).isNotSameAs(alone);
        }
    }

    /**
     * Why a run of unknown length is written again at every round: srtf, following the journal, keeps a running job's key
     * from an earlier round as long as keys only fall. This one's guessed remaining time grows with the service it has
     * had (10 minutes at first, 5,000 s later), so a job declaring 1,000 s that arrives later must still suspend it.
     */
    @Test
    void srtfFollowingTheJournalsSeesTheGrowingGuessOfAJobWithoutALength() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = dir.resolve("state");
        List<JobProfile> profiles = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        double solo = new ProfileStore(profiles).find(RESNET).orElseThrow().soloSpeed();
        try (Store store = new Store(Database.open(null, state));
             LocalExecutor executor = new LocalExecutor(state, host.tools(), Sharing.TIME_SLICING, 2000, 50)) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            Context ctx = context(store, executor, profiles);
            SnapshotBuilder snapshots = new SnapshotBuilder(ctx);
            long unknown = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, null, RESNET, null, JobControls.NONE), "admin", 0).id();
            long longJob = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, (long) (100_000 * solo), RESNET, null, JobControls.NONE), "admin", 0).id();
            ctx.runs.place(new Run(unknown, RESNET, 1, List.of(0), 0), List.of(0));
            dev.tandem.core.policy.Policy srtf = new dev.tandem.core.policies.SrtfPolicy();
            SchedulerSnapshot first = snapshots.build(Map.of(unknown, job(store, unknown), longJob, job(store, longJob)),
                    List.of(snapshots.pending(job(store, longJob))), 60_000);
            assertThat(srtf.decide(first)).as("10 minutes guessed left against 100,000 s").isEmpty();

            long shortJob = store.insertJob(new NewJob("t", List.of("train.py"), Map.of(), "/tmp", 1, 0, (long) (1_000 * solo), RESNET, null, JobControls.NONE), "admin", 0).id();
            SchedulerSnapshot later = snapshots.build(Map.of(unknown, job(store, unknown), longJob, job(store, longJob), shortJob, job(store, shortJob)),
                    List.of(snapshots.pending(job(store, longJob)), snapshots.pending(job(store, shortJob))), 5_000_000);
            assertThat(later.runningJournal()).isNotNull();
            assertThat(srtf.decide(later)).as("5,000 s guessed left against 1,000 s").filteredOn(d -> d instanceof dev.tandem.core.policy.Decision.Preempt)
                    .extracting(dev.tandem.core.policy.Decision::jobId).containsExactly(Long.toString(unknown));
        }
    }

    private static SchedulerSnapshot build(SnapshotBuilder snapshots, Store store, long[] ids) {
        Map<Long, JobRecord> jobs = new java.util.HashMap<>();
        for (long id : ids) jobs.put(id, job(store, id));
        return snapshots.build(jobs, List.of(), 3_000);
    }

    /** The journal's changes after the first {@code from}, as +id (started, alone), -id and ~id (reshown). */
    private static List<String> read(dev.tandem.core.policy.Journal<dev.tandem.core.model.Job> journal, long from) {
        List<String> out = new java.util.ArrayList<>();
        assertThat(journal.readSince(from, new dev.tandem.core.policy.Journal.Reader<>() {
            @Override public void changed(dev.tandem.core.model.Job job, boolean in) { out.add((in ? "+" : "-") + job.id()); }

            @Override public void updated(dev.tandem.core.model.Job job) { out.add("~" + job.id()); }
        })).isTrue();
        return out;
    }

    private static Context context(Store store, dev.tandem.server.exec.Executor executor, List<JobProfile> known) {
        return new Context(store, executor, executor.discoverGpus(), Oracle.build(store, "auto"), new GpuMonitor(), new ServerMetrics(),
                new SchedulerConfig(100, 1000, 1000, 1000, 3, 512), known, java.time.InstantSource.system(),
                new dev.tandem.core.policies.FifoPolicy());
    }

    private static JobRecord job(Store store, long id) { return store.job(id).orElseThrow(); }

    private static RunningJob running(SnapshotBuilder snapshots, Store store, long id) {
        return snapshots.build(Map.of(id, job(store, id)), List.of(), 3_000).running().getFirst();
    }
}
