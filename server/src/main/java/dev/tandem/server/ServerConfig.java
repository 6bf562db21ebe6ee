package dev.tandem.server;

import dev.tandem.server.exec.Containment;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.slurm.SlurmSettings;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.exec.simulated.SimulatedSettings;
import dev.tandem.server.sched.SchedulerConfig;

import java.nio.file.Path;

/**
 * Everything {@code tandem serve} is configured with.
 *
 * @param store   empty for SQLite in the state directory, or {@code sqlite:PATH}, or {@code postgresql://...}
 * @param tools   where nvidia-smi, dcgmi and nvidia-cuda-mps-control are looked up (normally PATH)
 * @param executor local (this machine's GPUs), slurm (sbatch onto a Slurm cluster's nodes) or simulated (GPUs simulated
 *                 from the bundled measured data, {@code simulated} says which and how fast)
 * @param stopJobsOnShutdown stop and requeue running jobs on a clean shutdown, instead of leaving them to the next daemon
 * @param containment how the local executor holds each run's processes (null: {@link Containment#AUTO})
 * @param socket  the Unix socket local clients connect to, known by their peer credentials (null: none)
 */
public record ServerConfig(Path stateDir, String host, int port, String store, String policy, Sharing sharing, int mpsThreadPercentage,
                           SchedulerConfig scheduler, long stopGraceMs, int maxBodyBytes, boolean stopJobsOnShutdown, ToolPath tools,
                           String executor, SlurmSettings slurm, SimulatedSettings simulated, Containment containment,
                           Path socket) {
    public ServerConfig {
        if (containment == null) containment = Containment.AUTO;
        if (executor == null) executor = "local";
        if (!executor.equals("local") && !executor.equals("slurm") && !executor.equals("simulated")) {
            throw new IllegalArgumentException("--executor must be local, slurm or simulated, got '" + executor + "'");
        }
        if (slurm == null) slurm = SlurmSettings.defaults();
        if (simulated == null) simulated = SimulatedSettings.defaults();
        if (port < 0 || port > 65535) throw new IllegalArgumentException("--port must be within 0..65535 (0 = any free port)");
        if (mpsThreadPercentage < 1 || mpsThreadPercentage > 100) throw new IllegalArgumentException("--mps-thread-percentage must be within 1..100");
        if (maxBodyBytes < 1024) throw new IllegalArgumentException("--max-body must be at least 1024 bytes");
        if (stopGraceMs < 0) throw new IllegalArgumentException("--stop-grace must not be negative");
    }

    public ServerConfig(Path stateDir, String host, int port, String store, String policy, Sharing sharing, int mpsThreadPercentage,
                        SchedulerConfig scheduler, long stopGraceMs, int maxBodyBytes, boolean stopJobsOnShutdown, ToolPath tools,
                        String executor, SlurmSettings slurm, SimulatedSettings simulated) {
        this(stateDir, host, port, store, policy, sharing, mpsThreadPercentage, scheduler, stopGraceMs, maxBodyBytes, stopJobsOnShutdown, tools,
                executor, slurm, simulated, null, null);
    }

    public ServerConfig(Path stateDir, String host, int port, String store, String policy, Sharing sharing, int mpsThreadPercentage,
                        SchedulerConfig scheduler, long stopGraceMs, int maxBodyBytes, boolean stopJobsOnShutdown, ToolPath tools,
                        String executor, SlurmSettings slurm) {
        this(stateDir, host, port, store, policy, sharing, mpsThreadPercentage, scheduler, stopGraceMs, maxBodyBytes, stopJobsOnShutdown, tools,
                executor, slurm, null);
    }

    /** The local executor (this machine's GPUs). */
    public ServerConfig(Path stateDir, String host, int port, String store, String policy, Sharing sharing, int mpsThreadPercentage,
                        SchedulerConfig scheduler, long stopGraceMs, int maxBodyBytes, boolean stopJobsOnShutdown, ToolPath tools) {
        this(stateDir, host, port, store, policy, sharing, mpsThreadPercentage, scheduler, stopGraceMs, maxBodyBytes, stopJobsOnShutdown, tools,
                "local", null, null);
    }

    /** The same configuration with another containment of runs. */
    public ServerConfig withContainment(Containment c) {
        return new ServerConfig(stateDir, host, port, store, policy, sharing, mpsThreadPercentage, scheduler, stopGraceMs, maxBodyBytes,
                stopJobsOnShutdown, tools, executor, slurm, simulated, c, socket);
    }

    /** The same configuration with a Unix socket for local clients (null: none). */
    public ServerConfig withSocket(Path unixSocket) {
        return new ServerConfig(stateDir, host, port, store, policy, sharing, mpsThreadPercentage, scheduler, stopGraceMs, maxBodyBytes,
                stopJobsOnShutdown, tools, executor, slurm, simulated, containment, unixSocket);
    }

    /** The socket's name in the state directory, where a daemon not run as root listens. */
    public static final String SOCKET_FILE = "tandem.sock";

    /** Where a daemon run as root listens by default, for every local user. */
    public static final Path ROOT_SOCKET = Path.of("/run/tandem/tandem.sock");

    public boolean slurmExecutor() { return executor.equals("slurm"); }

    public boolean simulatedExecutor() { return executor.equals("simulated"); }

    /** This machine's own GPUs: the only executor whose GPUs the daemon samples and locks against other daemons. */
    public boolean localExecutor() { return executor.equals("local"); }

    /**
     * Where local clients find a daemon's Unix socket by default: /run/tandem/tandem.sock for a daemon run as root
     * (every local user may connect; who they are comes from the socket), else STATE_DIR/tandem.sock (the daemon's
     * own user only, as the state directory is private).
     */
    public static Path defaultSocket(Path stateDir, boolean root) {
        return root ? ROOT_SOCKET : stateDir.resolve(SOCKET_FILE);
    }

    /** The state directory: $TANDEM_STATE_DIR, else ~/.local/state/tandem. */
    public static Path defaultStateDir() {
        String env = System.getenv("TANDEM_STATE_DIR");
        if (env != null && !env.isBlank()) return Path.of(env);
        return Path.of(System.getProperty("user.home"), ".local", "state", "tandem");
    }
}
