package dev.tandem.server.sched;

import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.server.exec.Binding;
import dev.tandem.server.exec.ExecEvent;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.ExecutorUnavailable;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.Launch;
import dev.tandem.server.exec.Launched;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.Database;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starting a run does not hold up the scheduling round: while one start waits in its binding step (Slurm's sbatch
 * takes about a second; here a latch holds it), the loop keeps ticking and starts the next job on another GPU; a job
 * cancelled while it was being started is stopped once it exists; a start the executor could not make goes back to
 * the queue without using an attempt, and the GPUs it held are free again.
 */
class AsyncBindingTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir Path dir;

    /**
     * The real local executor whose starts take as long as a latch says: the slow part only waits (as sbatch does,
     * touching no executor state), the start itself happens in the record step on the loop's thread, as the Slurm
     * executor's tracking does.
     */
    static final class SlowStarts implements Executor {
        final LocalExecutor real;
        final Map<Long, CountDownLatch> gates = new ConcurrentHashMap<>();
        final Set<Long> unreachable = ConcurrentHashMap.newKeySet();

        SlowStarts(LocalExecutor real) { this.real = real; }

        CountDownLatch gate(long jobId) { return gates.computeIfAbsent(jobId, id -> new CountDownLatch(1)); }

        @Override public Binding<?> bind(Launch l) {
            CountDownLatch gate = gate(l.jobId());
            return new Binding<Boolean>() {
                @Override public Boolean call() {
                    try {
                        if (!gate.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("gate of job " + l.jobId() + " never opened");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    if (unreachable.contains(l.jobId())) throw new ExecutorUnavailable("slurmctld does not answer (test)");
                    return true;
                }

                @Override public Launched finish(Boolean called) { return real.start(l); }
            };
        }

        @Override public List<GpuDevice> discoverGpus() { return real.discoverGpus(); }
        @Override public Launched start(Launch launch) { return real.start(launch); }
        @Override public void stop(long jobId) { real.stop(jobId); }
        @Override public boolean adopt(long jobId, int attempt, Long pid, Long pidStarted) { return real.adopt(jobId, attempt, pid, pidStarted); }
        @Override public List<ExecEvent> poll() { return real.poll(); }
        @Override public String containment() { return real.containment(); }
        @Override public Set<Long> liveJobs() { return real.liveJobs(); }
        @Override public void stopAll() { real.stopAll(); }
        @Override public void close() { real.close(); }
    }

    @Test
    void aSlowStartDoesNotHoldUpTheRound() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        SlowStarts executor = new SlowStarts(new LocalExecutor(state, host.tools(), Sharing.TIME_SLICING, 2000, 50));
        try (Store store = new Store(Database.open(null, state));
             SchedulerLoop loop = new SchedulerLoop(store, executor, executor.discoverGpus(), Oracle.build(store, "auto"), new GpuMonitor(),
                     new ServerMetrics(), PolicyCatalog.create("fifo"), new SchedulerConfig(100, 1000, 1000, 1000, 3, 512), List.of())) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            loop.start();
            long a = submit(store, loop, "sleep", "30");
            TestApi.await(WAIT, "job a to be claimed for a GPU", () -> job(store, a).state() != JobState.PENDING);
            assertThat(job(store, a).pid()).as("its start is still being bound").isNull();
            long tickBefore = loop.live().at();
            long b = submit(store, loop, "sleep", "30");
            TestApi.await(WAIT, "job b to be claimed while a's start is held", () -> job(store, b).state() != JobState.PENDING);
            TestApi.await(WAIT, "the loop to keep ticking", () -> loop.live().at() > tickBefore + 300);
            assertThat(job(store, a).gpuIds()).doesNotContainAnyElementsOf(job(store, b).gpuIds());
            assertThat(job(store, a).pid()).isNull();

            // cancelled while its start is held: it is stopped as soon as it exists
            store.transition(a, JobState.NOT_TERMINAL, JobState.CANCELLED, "test", "cancelled by test", new Change().set(Change.Column.FINISHED_AT, 1L), 1);
            loop.wake();
            executor.gate(a).countDown();
            executor.gate(b).countDown();
            TestApi.await(WAIT, "b's process to start", () -> job(store, b).pid() != null);
            TestApi.await(WAIT, "a's process to start and be stopped", () -> !executor.liveJobs().contains(a) && job(store, a).exitCode() != null);
            assertThat(job(store, a).state()).isEqualTo(JobState.CANCELLED);
            assertThat(loop.live().job(a)).isNull();

            // a start slurmctld could not take: back to the queue, attempt not used, its GPU free for the next
            long c = submit(store, loop, "sleep", "30");
            executor.unreachable.add(c);
            TestApi.await(WAIT, "job c to be claimed", () -> job(store, c).state() != JobState.PENDING);
            executor.gate(c).countDown();
            TestApi.await(WAIT, "job c to go back to the queue, its attempt not used", () -> job(store, c).state() == JobState.PENDING
                    && job(store, c).reason().contains("slurmctld does not answer (test)") && job(store, c).attempts() == 0);
            executor.unreachable.remove(c);
            executor.gates.remove(c);
            executor.gate(c).countDown(); // its next start goes through at once
            TestApi.await(WAIT, "job c to start on the free GPU", () -> job(store, c).pid() != null);
            assertThat(job(store, c).attempts()).isEqualTo(1);
            loop.shutdown(true);
        }
    }

    private static long submit(Store store, SchedulerLoop loop, String... argv) {
        NewJob j = new NewJob("t", List.of(argv), Map.of(), System.getProperty("java.io.tmpdir"), 1, 0, null,
                new WorkloadSignature("Idle", "", 0, false), null, JobControls.NONE);
        long id = store.insertJob(j, "admin", System.currentTimeMillis()).id();
        loop.wake();
        return id;
    }

    private static JobRecord job(Store store, long id) {
        Optional<JobRecord> r = store.job(id);
        return r.orElseThrow();
    }
}
