package dev.tandem.server;

import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.core.policy.Policy;
import dev.tandem.server.api.ApiServer;
import dev.tandem.server.api.Tokens;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.GpuLocks;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.exec.slurm.SlurmExecutor;
import dev.tandem.server.exec.simulated.SimulatedExecutor;
import dev.tandem.server.sched.KnownProfiles;
import dev.tandem.core.model.JobProfile;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.gpu.NvidiaSmiParser;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.sched.Oracle;
import dev.tandem.server.sched.SchedulerLoop;
import dev.tandem.server.sched.VirtualClock;
import dev.tandem.server.store.Database;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
    private final Executor executor;
    private final ApiServer api;
    private final String url;
    private final FileChannel stateLock;
    /** This machine's GPUs held against other daemons (null with the Slurm executor). */
    private final GpuLocks gpuLocks;
    private final CountDownLatch closed = new CountDownLatch(1);
    private boolean closing;

    private TandemServer(ServerConfig cfg, FileChannel stateLock, GpuLocks gpuLocks, Store store, GpuMonitor monitor, SchedulerLoop loop,
                         Executor executor, ApiServer api, String url) {
        this.cfg = cfg;
        this.executor = executor;
        this.stateLock = stateLock;
        this.gpuLocks = gpuLocks;
        this.store = store;
        this.monitor = monitor;
        this.loop = loop;
        this.api = api;
        this.url = url;
    }

    /**
     * Starts the daemon. What can fail for a reason the operator can fix (state directory not safe or taken, port in
     * use, no GPUs, store not openable) fails with a one-line {@link StartupException}, checked in that order so that
     * nothing is created (database, admin token) by a start that cannot succeed.
     */
    public static TandemServer start(ServerConfig cfg) {
        return start(cfg, null);
    }

    /**
     * Starts the daemon in virtual time, on simulated GPUs: the whole daemon (API, store, scheduler, executor) as
     * {@link #start} starts it, except that its clock stands still until the driver moves it and rounds run only when
     * the driver calls {@link #step}. With it, the same jobs run through {@code tandem simulate} and through the daemon
     * can be compared decision by decision.
     */
    public static TandemServer startInVirtualTime(ServerConfig cfg, VirtualClock clock) {
        if (!cfg.simulatedExecutor()) throw new IllegalArgumentException("virtual time needs the simulated executor; real runs take real time");
        return start(cfg, clock);
    }

    private static TandemServer start(ServerConfig cfg, VirtualClock virtual) {
        java.time.InstantSource clock = virtual != null ? virtual : java.time.InstantSource.system();
        Policy policy = PolicyCatalog.create(cfg.policy(), cfg.scheduler().tandem());
        List<JobProfile> knownProfiles = KnownProfiles.load(cfg.scheduler().knownProfiles()); // a bad file fails before anything is created
        FileChannel lock = null;
        Store store = null;
        GpuMonitor monitor = null;
        SchedulerLoop loop = null;
        Executor executor = null;
        GpuLocks gpuLocks = null;
        try {
            if (cfg.socket() != null) UnixSocketFile.check(cfg.socket()); // before anything is written
            int corrected = StateFiles.secureDir(cfg.stateDir());
            lock = StateFiles.lock(cfg.stateDir());
            probePort(cfg.host(), cfg.port());
            if (cfg.socket() != null) UnixSocketFile.prepare(cfg.socket());
            // Slurm executes on other machines: their GPUs are not this machine's nvidia-smi's to sample
            executor = cfg.slurmExecutor() ? new SlurmExecutor(cfg.stateDir(), cfg.tools(), cfg.slurm(), cfg.stopGraceMs())
                    : cfg.simulatedExecutor() ? SimulatedExecutor.withBundledData(cfg.stateDir(), cfg.simulated(), clock::millis)
                    : new LocalExecutor(cfg.stateDir(), cfg.tools(), cfg.sharing(), cfg.stopGraceMs(), cfg.mpsThreadPercentage(), cfg.containment());
            List<GpuDevice> gpus = discover(executor, cfg);
            if (cfg.localExecutor()) {
                // Slurm's GPUs are Slurm's to hand out, simulated ones nobody else's; this machine's are locked against every other tandem serve on it
                gpuLocks = GpuLocks.acquire(gpus, GpuLocks.DEFAULT_DIR, "pid " + ProcessHandle.current().pid() + ", state dir " + cfg.stateDir());
                if (gpuLocks.gpus().isEmpty()) {
                    throw new StartupException(String.join("; ", gpuLocks.leftOut()) + ": every GPU of this machine is taken; stop that daemon, or use its state directory");
                }
                // every GPU is scheduled; those another daemon holds stay unusable until it lets them go
            }
            store = new Store(openStore(cfg));
            ensureAdmin(store, cfg.stateDir());
            if (corrected > 0) log.info("state directory {}: removed group/other access from {} entries", cfg.stateDir(), corrected);
            for (GpuDevice g : gpus) log.info("GPU {}: {} ({} MiB, {}, node {})", g.index(), g.name(), g.memoryMiB(), g.uuid(), g.node());
            log.info("containment: {}", executor.containment());
            monitor = new GpuMonitor();
            if (cfg.localExecutor()) monitor.start(cfg.tools());
            if (executor instanceof SimulatedExecutor simulated) simulated.sendReadingsTo(monitor::record);
            ServerMetrics metrics = new ServerMetrics();
            metrics.store(store.database());
            loop = new SchedulerLoop(store, executor, gpus, Oracle.build(store, cfg.scheduler().model(), cfg.scheduler().online()), monitor, metrics, policy, cfg.scheduler(),
                    knownProfiles, clock);
            if (gpuLocks != null) loop.useGpuLocks(gpuLocks);
            if (virtual != null) loop.startInVirtualTime();
            else loop.start();
            String sharing = cfg.simulatedExecutor() ? "simulated" : cfg.sharing() == Sharing.MPS ? "mps" : "time-slicing";
            ApiServer api = new ApiServer(store, loop, metrics, cfg.stateDir(), sharing, cfg.host(), cfg.port(), cfg.maxBodyBytes(), cfg.socket());
            if (cfg.socket() != null) {
                UnixSocketFile.openToLocalUsers(cfg.socket());
                log.info("local clients: Unix socket {}, no token needed (callers known by their Unix account)", cfg.socket());
            }
            String url = "http://" + (cfg.host().contains(":") ? "[" + cfg.host() + "]" : cfg.host()) + ":" + api.port();
            StateFiles.writePrivate(cfg.stateDir().resolve(StateFiles.SERVER_URL), url + "\n");
            if (cfg.slurmExecutor()) sharing = "slurm";
            if (cfg.simulatedExecutor()) sharing = "simulated (" + cfg.simulated().cluster() + ", " + cfg.simulated().timeScale() + " s per second)";
            log.info("tandem serve: policy {}, {} GPU(s), {} sharing, store {}, listening on {}", policy.name(), gpus.size(), sharing,
                    store.database().description(), url);
            plainHttpBeyondThisMachine(cfg.host()).ifPresent(log::warn);
            return new TandemServer(cfg, lock, gpuLocks, store, monitor, loop, executor, api, url);
        } catch (IOException e) {
            closeQuietly(loop, executor, monitor, store, lock, gpuLocks);
            throw new StartupException("state directory " + cfg.stateDir() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(loop, executor, monitor, store, lock, gpuLocks);
            throw e;
        }
    }

    /**
     * What to say when the API listens where other machines reach it: it speaks plain HTTP, so every bearer token sent to
     * it crosses the network readable; empty for a loopback address (the default, 127.0.0.1).
     */
    static java.util.Optional<String> plainHttpBeyondThisMachine(String host) {
        try {
            if (java.net.InetAddress.getByName(host).isLoopbackAddress()) return java.util.Optional.empty();
        } catch (java.net.UnknownHostException e) {
            // not resolvable here: the bind fails on its own; nothing to add
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("the API listens on " + host + " over plain HTTP: tokens sent from other machines cross the network"
                + " unencrypted; put a TLS proxy in front of it or reach it through an SSH tunnel to 127.0.0.1");
    }

    /** Fails fast when the port is taken, before the store or the admin token is created. */
    static void probePort(String host, int port) {
        if (port == 0) return;
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true); // as the HTTP server binds: a port left in TIME_WAIT is free
            s.bind(new InetSocketAddress(host, port));
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            throw new StartupException("cannot listen on " + host + ":" + port + " (" + e.getMessage()
                    + "); another tandem serve or program may use it: stop it, or give --port (0 = any free port)", e);
        }
    }

    private static List<GpuDevice> discover(Executor executor, ServerConfig cfg) {
        try {
            return executor.discoverGpus();
        } catch (ExecException e) {
            throw new StartupException("no GPUs found: " + oneLine(e.getMessage()) + (cfg.slurmExecutor()
                    ? "; check that scontrol works and that the nodes have gpu GRES (--slurm-partition, --slurm-nodes)"
                    : "; tandem serve runs jobs on this machine's NVIDIA GPUs, listed by nvidia-smi " + String.join(" ", NvidiaSmiParser.INVENTORY_ARGS)
                      + "; to try tandem without GPUs, add --executor simulated"), e);
        }
    }

    private static Database openStore(ServerConfig cfg) {
        Database db = Database.parse(cfg.store(), cfg.stateDir());
        try {
            db.migrate();
            db.checkWritable();
            return db;
        } catch (RuntimeException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            throw new StartupException("cannot open the store " + db.description() + ": " + oneLine(root.getMessage())
                    + "; if another program holds it, stop that program; if it is damaged, restore it from a backup or give --store", e);
        }
    }

    private static String oneLine(String s) {
        if (s == null) return "(no message)";
        return s.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("(no message)");
    }

    private static void closeQuietly(SchedulerLoop loop, Executor executor, GpuMonitor monitor, Store store, FileChannel lock, GpuLocks gpuLocks) {
        if (gpuLocks != null) gpuLocks.close();
        if (loop != null) loop.shutdown(false);
        else if (executor != null) executor.close();
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
        if (!store.createUser("admin", Role.ADMIN, Tokens.hash(token), System.getProperty("user.name"), "tandem serve (first start)", System.currentTimeMillis())) {
            throw new IllegalStateException("a user 'admin' exists but is not an admin; fix the users table of the store");
        }
        log.info("created user admin; its token is in {}", file);
    }

    public String url() { return url; }

    /** One scheduling round now (virtual time, {@link #startInVirtualTime}). */
    public void step() { loop.step(); }

    /**
     * When something next happens on its own (virtual time): a simulated run ends, a round is due, a speed becomes
     * measured; Long.MAX_VALUE when nothing will until a job arrives.
     */
    public long nextEventMillis() {
        long next = loop.nextDueMillis();
        if (executor instanceof SimulatedExecutor simulated) next = Math.min(next, simulated.nextEventMillis());
        return next;
    }

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
            if (gpuLocks != null) gpuLocks.close();
            stateLock.close();
            log.info("tandem serve stopped");
        } catch (IOException e) {
            log.warn("cannot clean up the state directory: {}", e.getMessage());
        } finally {
            closed.countDown();
        }
    }
}
