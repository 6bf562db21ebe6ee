package dev.tandem.server.testing;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Policy;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.sched.Oracle;
import dev.tandem.server.sched.SchedulerConfig;
import dev.tandem.server.sched.SchedulerLoop;
import dev.tandem.server.store.Database;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.JobEvent;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The daemon's scheduler loop under a policy a test scripts, on two fake H100s with the real local executor, its
 * jobs submitted before it starts: for tests that make it carry out given decisions and look at what it did.
 */
public record ScriptedLoop(Store store, SchedulerLoop loop) implements AutoCloseable {
    /** A job of {@code gpus} GPUs of workload {@code w} that sleeps {@code seconds}. */
    public static NewJob sleeping(int gpus, int seconds, WorkloadSignature w) {
        return new NewJob("t", List.of("sleep", String.valueOf(seconds)), Map.of(), System.getProperty("java.io.tmpdir"), gpus, 0, null, w, null,
                JobControls.NONE);
    }

    /**
     * Starts the loop in {@code dir} with jobs 1, 2, ... as given (submitted by an admin), a round every {@code roundMs}.
     *
     * @param known the profiles the daemon knows (a job of any other workload is profiled alone first)
     */
    public static ScriptedLoop start(Path dir, Policy policy, ServerMetrics metrics, long roundMs, List<JobProfile> known, List<NewJob> jobs) throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        LocalExecutor executor = new LocalExecutor(state, host.tools(), Sharing.TIME_SLICING, 2000, 50);
        Store store = new Store(Database.open(null, state));
        SchedulerLoop loop = new SchedulerLoop(store, executor, executor.discoverGpus(), Oracle.build(store, "auto"), new GpuMonitor(), metrics, policy,
                new SchedulerConfig(100, roundMs, 1000, 1000, 3, 512), known);
        store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
        for (NewJob j : jobs) store.insertJob(j, "admin", System.currentTimeMillis());
        loop.start();
        return new ScriptedLoop(store, loop);
    }

    /** The decisions about a job the daemon refused, as its history notes them ("decision refused (WHAT): WHY"). */
    public List<JobEvent> refusals(long id) {
        return store.events(id).stream().filter(e -> e.reason().startsWith("decision refused (")).toList();
    }

    /** Why a decision was refused: the WHY of a refusal's note. */
    public static String why(JobEvent refusal) {
        return refusal.reason().substring(refusal.reason().indexOf("): ") + 3);
    }

    /** When the job's history first noted {@code reason}. */
    public long notedAt(long id, String reason) {
        return store.events(id).stream().filter(e -> e.reason().equals(reason)).findFirst().orElseThrow().at();
    }

    @Override public void close() {
        try (store) {
            loop.close();
        }
    }
}
