package dev.tandem.server;

import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.core.policy.Policy;
import dev.tandem.server.api.ApiServer;
import dev.tandem.server.api.Tokens;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.exec.slurm.SlurmExecutor;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.sched.Oracle;
import dev.tandem.server.sched.SchedulerLoop;
import dev.tandem.server.store.Database;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code tandem serve}: opens the store, makes sure there is an admin, finds the GPUs, re-adopts what an earlier
 * daemon left running, starts GPU sampling, the scheduler loop and the API, and writes {@code server.url}.
 */
public final class TandemServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TandemServer.class);

    private final ServerConfig cfg;
    private final Store store;
    private final GpuMonitor monitor;
    private final SchedulerLoop loop;
    private final ApiServer api;
    private final String url;
    private final FileChannel stateLock;
    private final CountDownLatch closed = new CountDownLatch(1);
    private boolean closing;

    private TandemServer(ServerConfig cfg, FileChannel stateLock, Store store, GpuMonitor monitor, SchedulerLoop loop, ApiServer api, String url) {
        this.cfg = cfg;
        this.stateLock = stateLock;
        this.store = store;
        this.monitor = monitor;
        this.loop = loop;
        this.api = api;
        this.url = url;
    }

    public static TandemServer start(ServerConfig cfg) {
        Policy policy = PolicyCatalog.create(cfg.policy());
        FileChannel lock = null;
        Store store = null;
        GpuMonitor monitor = null;
        SchedulerLoop loop = null;
        try {
            StateFiles.ensureDir(cfg.stateDir());
            lock = StateFiles.lock(cfg.stateDir());
            store = new Store(Database.open(cfg.store(), cfg.stateDir()));
            ensureAdmin(store, cfg.stateDir());
            // Slurm executes on other machines: their GPUs are not this machine's nvidia-smi's to sample
            Executor executor = cfg.slurmExecutor() ? new SlurmExecutor(cfg.stateDir(), cfg.tools(), cfg.slurm(), cfg.stopGraceMs())
                    : new LocalExecutor(cfg.stateDir(), cfg.tools(), cfg.sharing(), cfg.stopGraceMs(), cfg.mpsThreadPercentage());
            List<GpuDevice> gpus = executor.discoverGpus();
            for (GpuDevice g : gpus) log.info("GPU {}: {} ({} MiB, {})", g.index(), g.name(), g.memoryMiB(), g.uuid());
            monitor = new GpuMonitor();
            if (!cfg.slurmExecutor()) monitor.start(cfg.tools());
            ServerMetrics metrics = new ServerMetrics();
            loop = new SchedulerLoop(store, executor, gpus, Oracle.build(store), monitor, metrics, policy, cfg.scheduler());
            loop.start();
            String sharing = cfg.sharing() == Sharing.MPS ? "mps" : "time-slicing";
            ApiServer api = new ApiServer(store, loop, metrics, cfg.stateDir(), sharing, cfg.host(), cfg.port(), cfg.maxBodyBytes());
            String url = "http://" + (cfg.host().contains(":") ? "[" + cfg.host() + "]" : cfg.host()) + ":" + api.port();
            StateFiles.writePrivate(cfg.stateDir().resolve(StateFiles.SERVER_URL), url + "\n");
            if (cfg.slurmExecutor()) sharing = "slurm";
            log.info("tandem serve: policy {}, {} GPU(s), {} sharing, store {}, listening on {}", policy.name(), gpus.size(), sharing,
                    store.database().description(), url);
            return new TandemServer(cfg, lock, store, monitor, loop, api, url);
        } catch (IOException e) {
            closeQuietly(loop, monitor, store, lock);
            throw new UncheckedIOException("state directory " + cfg.stateDir() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(loop, monitor, store, lock);
            throw e;
        }
    }

    private static void closeQuietly(SchedulerLoop loop, GpuMonitor monitor, Store store, FileChannel lock) {
        if (loop != null) loop.shutdown(false);
        if (monitor != null) monitor.close();
        if (store != null) store.close();
        try {
            if (lock != null) lock.close();
        } catch (IOException ignored) {
            // the lock goes with the process anyway
        }
    }

    /**
     * On the first start there is no admin: one is created and its token written to {@code admin.token} (mode
     * 0600) before the user row, so a crash in between never leaves an admin whose token nobody has.
     */
    private static void ensureAdmin(Store store, Path stateDir) throws IOException {
        if (store.anyAdmin()) return;
        String token = Tokens.generate();
        Path file = stateDir.resolve(StateFiles.ADMIN_TOKEN);
        StateFiles.writePrivate(file, token + "\n");
        if (!store.createUser("admin", Role.ADMIN, Tokens.hash(token), System.currentTimeMillis())) {
            throw new IllegalStateException("a user 'admin' exists but is not an admin; fix the users table of the store");
        }
        log.info("created user admin; its token is in {}", file);
    }

    public String url() { return url; }

    public Path adminTokenFile() { return cfg.stateDir().resolve(StateFiles.ADMIN_TOKEN); }

    public Store store() { return store; }

    /** Blocks until {@link #close()} has run (e.g. from the shutdown hook on SIGTERM). */
    public void awaitClose() throws InterruptedException { closed.await(); }

    @Override public synchronized void close() {
        if (closing) return;
        closing = true;
        try {
            api.close();
            loop.shutdown(cfg.stopJobsOnShutdown());
            monitor.close();
            store.close();
            Files.deleteIfExists(cfg.stateDir().resolve(StateFiles.SERVER_URL));
            stateLock.close();
            log.info("tandem serve stopped");
        } catch (IOException e) {
            log.warn("cannot clean up the state directory: {}", e.getMessage());
        } finally {
            closed.countDown();
        }
    }
}
