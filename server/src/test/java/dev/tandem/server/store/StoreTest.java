package dev.tandem.server.store;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.server.testing.PostgresScratch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store on SQLite (always) and on PostgreSQL (only when TANDEM_TEST_POSTGRES_URL names a scratch database,
 * e.g. postgresql://tandem:secret@127.0.0.1:5432/tandem_test; its tables are dropped first).
 */
class StoreTest {
    @TempDir Path dir;

    static final WorkloadSignature SIG = new WorkloadSignature("ResNet18", "CIFAR-10", 64, true);

    @Test
    void sqliteStoreMigratesInWalModeAndKeepsEverything() throws Exception {
        try (Store s = new Store(Database.open(null, dir))) {
            exercise(s, () -> Database.open(null, dir));
            String mode = s.database().tx(c -> {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("PRAGMA journal_mode")) {
                    rs.next();
                    return rs.getString(1);
                }
            });
            assertThat(mode).isEqualTo("wal");
        }
        try (Store again = new Store(Database.open("sqlite:" + dir.resolve("tandem.db"), dir))) {
            assertThat(again.jobs(null, EnumSet.noneOf(JobState.class), 0, 100)).hasSize(6);
            assertThat(again.profiles()).hasSize(1);
            assertThat(again.database().tx(StoreTest::schemaVersion)).isEqualTo("5");
        }
    }

    @Test
    @EnabledIfEnvironmentVariable(named = "TANDEM_TEST_POSTGRES_URL", matches = "postgres.*")
    void postgresqlStoreBehavesTheSame() throws Exception {
        PostgresScratch.reset(System.getenv("TANDEM_TEST_POSTGRES_URL"), dir);
        try (Store s = new Store(Database.open(System.getenv("TANDEM_TEST_POSTGRES_URL"), dir))) {
            exercise(s, () -> Database.open(System.getenv("TANDEM_TEST_POSTGRES_URL"), dir));
            everyColumn(s, () -> Database.open(System.getenv("TANDEM_TEST_POSTGRES_URL"), dir));
        }
    }

    /** A daemon keeps its jobs in memory: a second daemon on the same PostgreSQL store is refused, until the first closes. */
    @Test
    @EnabledIfEnvironmentVariable(named = "TANDEM_TEST_POSTGRES_URL", matches = "postgres.*")
    void onePostgresqlStoreServesOneDaemon() throws Exception {
        String url = System.getenv("TANDEM_TEST_POSTGRES_URL");
        PostgresScratch.reset(url, dir);
        try (Database second = Database.open(url, dir)) {
            try (Database first = Database.open(url, dir)) {
                first.checkWritable();
                assertThatThrownBy(second::checkWritable).hasMessageContaining("another tandem daemon uses this store");
                first.checkWritable(); // its own lock: still fine
            }
            second.checkWritable(); // the first one is gone
        }
    }

    /**
     * The unfinished jobs, the counts per state and the users the store keeps in memory are what a store opened afresh
     * on the same database reads from it: every write went through.
     */
    static void assertMemoryIsTheDatabase(Store s, Supplier<Database> sameDatabase) {
        try (Store fresh = new Store(sameDatabase.get())) {
            assertThat(s.unfinishedJobs()).isEqualTo(fresh.unfinishedJobs());
            assertThat(s.countByState()).isEqualTo(fresh.countByState());
            assertThat(s.users()).isEqualTo(fresh.users());
            for (JobRecord r : fresh.jobs(null, EnumSet.noneOf(JobState.class), 0, 1000)) assertThat(s.job(r.id())).contains(r);
        }
    }

    static String schemaVersion(Connection c) throws java.sql.SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT MAX(version) FROM flyway_schema_history")) {
            rs.next();
            return rs.getString(1);
        }
    }

    static void exercise(Store s, Supplier<Database> sameDatabase) {
        assertThat(s.anyAdmin()).isFalse();
        assertThat(s.createUser("admin", Role.ADMIN, "a".repeat(64), "root", "test", 1)).isTrue();
        assertThat(s.createUser("admin", Role.USER, "b".repeat(64), null, "test", 1)).isFalse();
        assertThat(s.anyAdmin()).isTrue();
        assertThat(s.userByTokenHash("a".repeat(64))).contains(new User("admin", Role.ADMIN, "root", false, 1, null));
        assertThat(s.user("admin")).contains(new User("admin", Role.ADMIN, "root", false, 1, null));
        assertThat(s.setDisabled("admin", true, "ops", 2)).isTrue();
        assertThat(s.setDisabled("admin", true, "ops", 3)).as("already disabled: recorded once").isTrue();
        assertThat(s.setDisabled("nobody", true, "ops", 3)).isFalse();
        assertThat(s.user("admin").orElseThrow().disabled()).isTrue();
        assertThat(s.enabledAdmins()).isZero();
        assertThat(s.rotateToken("admin", "d".repeat(64), "ops", 4)).isTrue();
        assertThat(s.userByTokenHash("a".repeat(64))).isEmpty();
        assertThat(s.userByTokenHash("d".repeat(64))).isPresent();
        assertThat(s.userEvents("admin")).extracting(User.Event::action, User.Event::actor).containsExactly(
                org.assertj.core.groups.Tuple.tuple("created", "test"), org.assertj.core.groups.Tuple.tuple("disabled", "ops"),
                org.assertj.core.groups.Tuple.tuple("token-rotated", "ops"));
        assertThat(s.userByTokenHash("c".repeat(64))).isEmpty();

        NewJob nj = new NewJob("train", List.of("python", "train.py", "--lr", "1e-3; rm -rf /"), Map.of("SEED", "1"), "/tmp", 1, 4096, 500L, SIG, 7_200_000L, JobControls.NONE);
        JobRecord j = s.insertJob(nj, "admin", 1000);
        JobRecord k = s.insertJob(nj, "admin", 1001);
        assertThat(k.id()).isGreaterThan(j.id());
        assertThat(j.argv()).containsExactly("python", "train.py", "--lr", "1e-3; rm -rf /");
        assertThat(j.state()).isEqualTo(JobState.PENDING);
        assertThat(j.signature()).isEqualTo(SIG);

        assertThat(s.transition(j.id(), JobState.QUEUED, JobState.RUNNING, "scheduler", "idle GPU",
                new Change().add(Change.Column.ATTEMPTS, 1).set(Change.Column.GPU_IDS, "0,1").set(Change.Column.PID, 4242L), 2000)).isTrue();
        assertThat(s.transition(j.id(), JobState.QUEUED, JobState.RUNNING, "scheduler", "again", Change.none(), 2001)).isFalse();
        JobRecord r = s.job(j.id()).orElseThrow();
        assertThat(r.attempts()).isEqualTo(1);
        assertThat(r.gpuIds()).containsExactly(0, 1);
        assertThat(r.pid()).isEqualTo(4242L);
        assertThat(r.timeLimitMs()).isEqualTo(7_200_000L);
        assertThat(s.jobsWithProcess()).extracting(JobRecord::id).containsExactly(j.id());
        assertThat(s.events(j.id())).extracting(JobEvent::to).containsExactly(JobState.PENDING, JobState.RUNNING);
        assertThat(s.events(j.id()).get(1).reason()).isEqualTo("idle GPU");
        s.note(j.id(), "scheduler", "decision refused (start on GPU(s) 3): GPU 3 does not exist", 2002);
        assertThat(s.events(j.id())).hasSize(3);
        assertThat(s.events(j.id()).get(2)).extracting(JobEvent::from, JobEvent::to, JobEvent::reason)
                .containsExactly(JobState.RUNNING, JobState.RUNNING, "decision refused (start on GPU(s) 3): GPU 3 does not exist");
        assertThat(s.job(j.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        s.note(999_999, "scheduler", "no such job: nothing recorded", 2003);
        assertThat(s.unfinishedJobs()).hasSize(2);
        assertThat(s.countByState()).containsEntry(JobState.RUNNING, 1L).containsEntry(JobState.PENDING, 1L);

        s.raiseMemoryEstimate(SIG, 9000, 1);
        s.raiseMemoryEstimate(SIG, 8000, 2);
        assertThat(s.memoryEstimates()).containsEntry(SIG, 9000L);
        s.addOomPair(SIG, new WorkloadSignature("BERT", "SQuAD", 32, false), 1);
        s.addOomPair(SIG, new WorkloadSignature("BERT", "SQuAD", 32, false), 2);
        assertThat(s.oomPairs()).hasSize(2).contains(SIG.label() + "|BERT/SQuAD/bs32");
        s.addObservation(new Store.Observation(SIG, SIG, 1, 0.9, 0.8), 5);
        assertThat(s.observations()).containsExactly(new Store.Observation(SIG, SIG, 1, 0.9, 0.8));

        assertMemoryIsTheDatabase(s, sameDatabase);
        exerciseJobControls(s, nj, j, k, sameDatabase);
        assertMemoryIsTheDatabase(s, sameDatabase);
        assertThat(s.unfinishedJobs()).extracting(JobRecord::id).containsExactly(k.id());
        assertThat(s.countByState()).containsEntry(JobState.SUCCEEDED, 1L).containsEntry(JobState.CANCELLED, 4L).containsEntry(JobState.PENDING, 1L);

        JobProfile p = new JobProfile(SIG, 12.5, 31, 12, 2048, 0.3, Double.NaN, -1);
        s.saveProfile(new ProfileRecord(p, true, 0.1, 25, j.id(), "NVIDIA H100", 10));
        s.saveProfile(new ProfileRecord(p, true, 0.1, 30, j.id(), "NVIDIA H100", 11));
        ProfileRecord back = s.profiles().getFirst();
        assertThat(s.profiles()).hasSize(1);
        assertThat(back.samples()).isEqualTo(30);
        assertThat(back.profile().smOccupancy()).isNaN();
        assertThat(back.profile().gmemMiB()).isEqualTo(2048);
    }

    /** Priority, dependencies, holds, arrays, partners, accounting and user limits survive the store (schema 4). */
    private static void exerciseJobControls(Store s, NewJob nj, JobRecord running, JobRecord pending, Supplier<Database> sameDatabase) {
        JobControls ctl = new JobControls(-5, List.of(running.id(), pending.id()), true, null, null);
        NewJob controlled = new NewJob("sweep", nj.argv(), nj.env(), nj.workdir(), 1, 0, null, SIG, null, ctl);
        JobRecord c = s.insertJob(controlled, "admin", 3000);
        assertThat(c.controls()).isEqualTo(ctl);
        assertThat(s.events(c.id()).getFirst().reason()).isEqualTo("submitted held");
        assertThat(s.setHeld(c.id(), false, "ops", 3001)).contains(JobState.PENDING);
        assertThat(s.setHeld(c.id(), false, "ops", 3002)).as("released already: not recorded again").contains(JobState.PENDING);
        assertThat(s.job(c.id()).orElseThrow().controls().held()).isFalse();
        assertThat(s.events(c.id())).extracting(JobEvent::reason).containsExactly("submitted held", "released by ops");
        assertThat(s.setHeld(running.id(), true, "ops", 3003)).as("a running job is not held").contains(JobState.RUNNING);
        assertThat(s.job(running.id()).orElseThrow().controls().held()).isFalse();
        assertThat(s.setHeld(999_999, true, "ops", 3003)).isEmpty();

        List<JobRecord> array = s.insertArray(new NewJob("a", nj.argv(), nj.env(), nj.workdir(), 1, 0, null, SIG, null, JobControls.NONE),
                List.of(0, 2, 4), "admin", 3100);
        assertThat(array).extracting(JobRecord::name).containsExactly("a[0]", "a[2]", "a[4]");
        assertThat(array).extracting(r -> r.controls().arrayJob()).containsOnly(array.getFirst().id());
        assertThat(array).extracting(r -> r.controls().arrayIndex()).containsExactly(0, 2, 4);

        s.recordPartners(running.id(), pending.id(), 3200);
        s.recordPartners(pending.id(), running.id(), 3201);
        assertThat(s.job(running.id()).orElseThrow().partners()).containsExactly(pending.id());
        assertThat(s.job(pending.id()).orElseThrow().partners()).containsExactly(running.id());

        assertThat(s.transition(running.id(), JobState.ON_GPU, JobState.SUCCEEDED, "scheduler", "exit 0",
                new Change().set(Change.Column.FINISHED_AT, 5000L).add(Change.Column.ATTAINED_GPU_MS, 7_200_000)
                        .setIfNull(Change.Column.FIRST_STARTED_AT, 1500L), 5000)).isTrue();
        // the one life cycle: a finished job never runs again, and no step keeps a waiting job waiting; refused
        // before anything is read or written, whatever the job's state
        int events = s.events(running.id()).size();
        assertThatThrownBy(() -> s.transition(running.id(), JobState.TERMINAL, JobState.RUNNING, "scheduler", "again", Change.none(), 5000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from succeeded to running");
        assertThatThrownBy(() -> s.transition(pending.id(), EnumSet.of(JobState.PENDING), JobState.SUSPENDED, "scheduler", "?", Change.none(), 5000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from pending to suspended");
        assertThat(s.job(running.id()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(s.job(pending.id()).orElseThrow().state()).isEqualTo(JobState.PENDING);
        assertThat(s.events(running.id())).hasSize(events);
        s.update(running.id(), new Change().setIfNull(Change.Column.FIRST_STARTED_AT, 9999L), 5001);
        assertThat(s.job(running.id()).orElseThrow().firstStartedAt()).as("set only once").isEqualTo(1500L);
        assertThat(s.finishedJobs(null, 0, Long.MAX_VALUE, 10)).extracting(JobRecord::id).containsExactly(running.id());
        assertThat(s.finishedJobs("admin", 5001, Long.MAX_VALUE, 10)).isEmpty();
        assertThat(s.finishedJobs("nobody", 0, Long.MAX_VALUE, 10)).isEmpty();

        assertThat(s.setMaxGpus("admin", 4, "ops", 6000)).isTrue();
        assertThat(s.user("admin").orElseThrow().maxGpus()).isEqualTo(4);
        assertThat(s.setMaxGpus("admin", null, "ops", 6001)).isTrue();
        assertThat(s.user("admin").orElseThrow().maxGpus()).isNull();
        assertThat(s.setMaxGpus("nobody", 1, "ops", 6002)).isFalse();
        assertThat(s.userEvents("admin")).extracting(User.Event::action).endsWith("limit-set", "limit-set");
        assertMemoryIsTheDatabase(s, sameDatabase); // partners, holds, an array, a finished job
        for (JobRecord r : array) s.transition(r.id(), JobState.QUEUED, JobState.CANCELLED, "test", "tidy", Change.none(), 7000);
        s.transition(c.id(), JobState.QUEUED, JobState.CANCELLED, "test", "tidy", Change.none(), 7000);
    }

    /**
     * The store works out each row it writes in memory, never reading it back: every column a change can set, add to
     * or set once, in the values callers hand (a NaN speed, an int for a long column, no GPUs), comes out as the
     * database stores it.
     */
    @Test
    void everyColumnAChangeWritesIsWorkedOutInMemoryAsTheDatabaseStoresIt() {
        try (Store s = new Store(Database.open(null, dir))) {
            everyColumn(s, () -> Database.open(null, dir));
        }
    }

    static void everyColumn(Store s, Supplier<Database> sameDatabase) {
        NewJob nj = new NewJob("cols", List.of("python", "t.py"), Map.of("A", "1", "B", "2"), "/tmp", 2, 1024, 10L, SIG, null,
                new JobControls(3, List.of(), false, null, null), new RunLimits(2048L, 16), "/tmp/out");
        s.createUser("alice", Role.USER, "a".repeat(64), null, "test", 1);
        JobRecord j = s.insertJob(nj, "alice", 100);
        assertThat(s.transition(j.id(), JobState.QUEUED, JobState.PAIRED, "scheduler", "paired", new Change()
                .add(Change.Column.ATTEMPTS, 1).set(Change.Column.GPU_IDS, "3,1").set(Change.Column.PID, 77)
                .set(Change.Column.PID_STARTED, 12345L).set(Change.Column.PREDICTED_SPEED, 0.75).set(Change.Column.OBSERVED_SPEED, Double.NaN)
                .set(Change.Column.STARTED_AT, 200L).setIfNull(Change.Column.FIRST_STARTED_AT, 200L).set(Change.Column.EXCLUSIVE, true), 200)).isTrue();
        s.update(j.id(), new Change().set(Change.Column.PROGRESS_ITER, 5).set(Change.Column.OBSERVED_SPEED, 0.5)
                .setIfNull(Change.Column.FIRST_STARTED_AT, 999L).add(Change.Column.ATTAINED_GPU_MS, 40), 250);
        assertThat(s.transition(j.id(), JobState.ON_GPU, JobState.SUSPENDED, "scheduler", "made room", new Change()
                .add(Change.Column.ATTAINED_GPU_MS, 1000L).set(Change.Column.EXIT_CODE, 137).set(Change.Column.PID, null)
                .set(Change.Column.PID_STARTED, null).set(Change.Column.GPU_IDS, null).set(Change.Column.QUEUED_AT, 300L)
                .set(Change.Column.EXCLUSIVE, false).add(Change.Column.ATTEMPTS, -1), 300)).isTrue();
        JobRecord r = s.job(j.id()).orElseThrow();
        assertThat(r.attempts()).isZero();
        assertThat(r.attainedGpuMs()).isEqualTo(1040);
        assertThat(r.gpuIds()).isEmpty();
        assertThat(r.observedSpeed()).isEqualTo(0.5);
        assertThat(r.firstStartedAt()).isEqualTo(200L);
        assertThat(r.exitCode()).isEqualTo(137);
        assertThat(r.reason()).isEqualTo("made room");
        assertThat(r.updatedAt()).isEqualTo(300);
        s.recordPartners(j.id(), j.id() + 1, 310);
        assertMemoryIsTheDatabase(s, sameDatabase);
        assertThatThrownBy(() -> new Change().setIfNull(Change.Column.ATTEMPTS, 1)).as("no NULL to tell apart")
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Writes asked for together run in one database transaction, each checked against what the earlier ones wrote, not
     * only against what was committed: a job cancelled by one cannot be started by the next, and that one is refused as
     * any late start is (false), not failed.
     */
    @Test
    void aWriteIsCheckedAgainstTheEarlierWritesOfItsBatch() throws Exception {
        try (Store s = new Store(Database.open(null, dir))) {
            NewJob nj = new NewJob("race", List.of("true"), Map.of(), "/tmp", 1, 0, null, SIG, null, JobControls.NONE);
            s.createUser("alice", Role.USER, "a".repeat(64), null, "test", 1);
            long id = s.insertJob(nj, "alice", 1).id();
            java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1), release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
            try {
                var holder = pool.submit(() -> s.database().tx(c -> {
                    holding.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return null;
                }));
                holding.await();
                var cancel = pool.submit(() -> s.transition(id, JobState.QUEUED, JobState.CANCELLED, "alice", "cancelled", Change.none(), 2));
                while (s.database().waitingTransactions() < 1) Thread.sleep(1);
                var start = pool.submit(() -> s.transition(id, JobState.QUEUED, JobState.RUNNING, "scheduler", "idle GPU",
                        new Change().set(Change.Column.GPU_IDS, "0"), 2));
                while (s.database().waitingTransactions() < 2) Thread.sleep(1);
                long commits = s.database().commits();
                release.countDown();
                holder.get(10, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(cancel.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                assertThat(start.get(10, java.util.concurrent.TimeUnit.SECONDS)).isFalse();
                assertThat(s.database().commits() - commits).as("the two shared a commit").isEqualTo(2);
            } finally {
                pool.shutdownNow();
            }
            assertThat(s.job(id).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
            assertThat(s.events(id)).extracting(JobEvent::to).containsExactly(JobState.PENDING, JobState.CANCELLED);
            assertMemoryIsTheDatabase(s, () -> Database.open(null, dir));
        }
    }

    @Test
    void storeUrlsAreParsedAndPasswordsKeptOutOfDescriptions() {
        Database pg = Database.parse("postgresql://tandem:s%40cret@db.local:5433/sched?sslmode=require", dir);
        assertThat(pg.kind()).isEqualTo(Database.Kind.POSTGRESQL);
        assertThat(pg.description()).isEqualTo("postgresql://tandem@db.local:5433/sched").doesNotContain("cret");
        assertThat(Database.parse(null, dir).description()).isEqualTo("sqlite:" + dir.resolve("tandem.db"));
        assertThatThrownBy(() -> Database.parse("mysql://u:topsecret@h/db", dir)).hasMessageContaining("u:***@").hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> Database.parse("postgresql://h", dir)).hasMessageContaining("postgresql://user:password@host:port/database");
    }
}
