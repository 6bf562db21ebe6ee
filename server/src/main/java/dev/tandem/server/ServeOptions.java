package dev.tandem.server;

import dev.tandem.server.exec.Containment;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.exec.slurm.SlurmSettings;
import dev.tandem.server.exec.simulated.SimulatedSettings;
import dev.tandem.server.sched.SchedulerConfig;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * The options of {@code tandem serve}, shared by the CLI's serve command and {@link ServerMain} (a picocli mixin). Each
 * can also be set in the config file or the environment ({@link ServeSettings}).
 */
public final class ServeOptions {
    @Option(names = ServeSettings.CONFIG_OPTION, paramLabel = "FILE", description = "a YAML file of serve options (name: value, names without the dashes); an option given on the command line or as $TANDEM_NAME (e.g. TANDEM_PORT) wins (default: $TANDEM_CONFIG, else none)")
    Path config;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "state directory: store, job output, admin token (default: $TANDEM_STATE_DIR or ~/.local/state/tandem)")
    Path stateDir;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to listen on (default: ${DEFAULT-VALUE}, this machine only; the API speaks plain HTTP, so reach it from elsewhere through an SSH tunnel or a TLS proxy)")
    String host;

    @Option(names = "--port", defaultValue = "8265", description = "port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--socket", paramLabel = "PATH|none", description = "a Unix socket for clients on this machine, who need no token there: the daemon knows them by the socket's peer credentials (default: /run/tandem/tandem.sock as root, else STATE_DIR/tandem.sock)")
    String socket;

    @Option(names = "--store", paramLabel = "URL", description = "sqlite:PATH (default: STATE_DIR/tandem.db) or postgresql://user@host:port/database (the password from --store-password-file or $TANDEM_STORE_PASSWORD, not on the command line, which ps shows)")
    String store;

    @Option(names = "--store-password-file", paramLabel = "FILE", description = "the PostgreSQL password: the first line of this file (default: $TANDEM_STORE_PASSWORD if set)")
    Path storePasswordFile;

    @Option(names = "--policy", defaultValue = "tandem", description = "scheduling policy (see tandem policies; default: ${DEFAULT-VALUE})")
    String policy;

    @Option(names = "--sharing", defaultValue = "time-slicing", description = "how co-located jobs share a GPU: time-slicing or mps (default: ${DEFAULT-VALUE})")
    String sharing;

    @Option(names = "--mps-thread-percentage", defaultValue = "50", description = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of a job that shares its GPU (default: ${DEFAULT-VALUE})")
    int mpsThreadPercentage;

    @Option(names = "--tick", defaultValue = "500ms", converter = DurationConverter.class, description = "how often running jobs are looked at (default: ${DEFAULT-VALUE})")
    long tickMs;

    @Option(names = "--round", defaultValue = "5s", converter = DurationConverter.class, description = "how often the policy is asked when nothing changed (default: ${DEFAULT-VALUE})")
    long roundMs;

    @Option(names = "--profile-time", defaultValue = "2m", converter = DurationConverter.class, description = "how long a new workload runs alone to be profiled; up to three times as long while GPU readings or, for a job submitted with --iterations, its first progress lines are missing (default: ${DEFAULT-VALUE})")
    long profileMs;

    @Option(names = "--observe-time", defaultValue = "60s", converter = DurationConverter.class, description = "how long co-located jobs run before their speeds count as measured (default: ${DEFAULT-VALUE})")
    long observeMs;

    @Option(names = "--stop-grace", defaultValue = "30s", converter = DurationConverter.class, description = "SIGTERM to SIGKILL delay when stopping a job (default: ${DEFAULT-VALUE})")
    long stopGraceMs;

    @Option(names = "--max-attempts", defaultValue = "3", description = "runs a job gets before a crash fails it (default: ${DEFAULT-VALUE})")
    int maxAttempts;

    @Option(names = "--known-profiles", defaultValue = "bundled", paramLabel = "bundled|none|FILE", description = "solo profiles known in advance: a job of such a workload is not profiled alone first and may share at once; bundled: Lucid's measured profiles (RTX 3090), FILE: your own in the same format (default: ${DEFAULT-VALUE})")
    String knownProfiles;

    @Option(names = "--max-gpus-per-user", defaultValue = "0", paramLabel = "N", description = "how many GPUs one user's jobs may hold at once, unless set for the user with tandem users limit (default: ${DEFAULT-VALUE}, no limit)")
    int maxGpusPerUser;

    /** The same scheduling options as tandem simulate: memory margin, tandem's tunables, --objective. */
    @Mixin PolicyOptions scheduling;

    @Option(names = "--max-body", defaultValue = "65536", paramLabel = "BYTES", description = "largest request body accepted (default: ${DEFAULT-VALUE})")
    int maxBodyBytes;

    @Option(names = "--log-format", defaultValue = "text", paramLabel = "text|json", description = "the daemon's log on stderr: text lines with date and time, or one JSON object per line (default: ${DEFAULT-VALUE})")
    String logFormat;

    @Option(names = "--stop-jobs-on-shutdown", description = "on SIGTERM stop and requeue running jobs (default: leave them running for the next daemon to re-adopt)")
    boolean stopJobsOnShutdown;

    @Option(names = "--containment", defaultValue = "auto", paramLabel = "auto|cgroup|session", description = "with --executor local: how each run's processes are held together: a cgroup v2 per run (nothing escapes it; needs root or a delegated cgroup), a Unix session per run, or auto, cgroups where they work (the start-up log says which; default: ${DEFAULT-VALUE})")
    String containment;

    @Option(names = "--executor", defaultValue = "local", description = "where jobs run: local (this machine's GPUs), slurm (sbatch onto a Slurm cluster) or simulated (no GPU needed: GPUs simulated from the bundled measured data; a job's environment may set SIMULATED_ITERATIONS=N, how many iterations it really runs; default: ${DEFAULT-VALUE})")
    String executor;

    @Option(names = "--cluster", defaultValue = "1x4:RTX3090-24GB", paramLabel = "SPEC", description = "with --executor simulated: the simulated GPUs, NODESxGPUS:TYPE-MEM as in tandem simulate (default: ${DEFAULT-VALUE})")
    String simulatedCluster;

    @Option(names = "--time-scale", defaultValue = "60", paramLabel = "N", description = "with --executor simulated: simulated seconds per second (default: ${DEFAULT-VALUE}: a 30-minute job takes 30 s); the policy and its durations (--tandem-starvation, its rounds and minimum runs) are in simulated time")
    double timeScale;

    @Option(names = "--slurm-partition", paramLabel = "NAME", description = "with --executor slurm: submit to this partition and use only its nodes")
    String slurmPartition;

    @Option(names = "--slurm-nodes", paramLabel = "LIST", split = ",", description = "with --executor slurm: use only these nodes (default: all with gpu GRES)")
    java.util.List<String> slurmNodes;

    @Option(names = "--slurm-gpus-per-node", defaultValue = "0", description = "with --executor slurm: use at most N GPUs of each node (0 = all)")
    int slurmGpusPerNode;

    @Option(names = "--slurm-gpu-memory", defaultValue = "81920", paramLabel = "MIB", description = "with --executor slurm: device memory of each GPU (default: ${DEFAULT-VALUE} MiB)")
    long slurmGpuMemoryMiB;

    @Option(names = "--slurm-nvidia-smi", defaultValue = "nvidia-smi", paramLabel = "PATH", description = "with --executor slurm: the nvidia-smi profiling runs start on their node (default: ${DEFAULT-VALUE} from the node's PATH)")
    String slurmNvidiaSmi;

    @Option(names = "--slurm-dcgmi", defaultValue = "dcgmi", paramLabel = "PATH", description = "with --executor slurm: the dcgmi profiling runs start on their node where it exists (default: ${DEFAULT-VALUE} from the node's PATH)")
    String slurmDcgmi;

    @Option(names = "--slurm-pending-limit", defaultValue = "2m", converter = DurationConverter.class, paramLabel = "DURATION", description = "with --executor slurm: a run Slurm keeps waiting (PENDING) this long is cancelled there and its job goes back to tandem's queue, as a run that did not run (default: ${DEFAULT-VALUE})")
    long slurmPendingLimitMs;

    @Option(names = "--slurm-gres", defaultValue = "none", paramLabel = "none|shard", description = "with --executor slurm: shard also requests each job's share of its GPU's shard GRES, for Slurm's accounting (default: ${DEFAULT-VALUE})")
    String slurmGres;

    /** Whether {@code --store} is a PostgreSQL URL with a password in it (user:password@). */
    public boolean storeHoldsPassword() {
        return StorePassword.inUrl(store);
    }

    public ServerConfig toConfig() {
        Path state = stateDir == null ? ServerConfig.defaultStateDir() : stateDir.toAbsolutePath();
        Path unixSocket = socket == null || socket.isBlank() ? ServerConfig.defaultSocket(state, "root".equals(System.getProperty("user.name")))
                : socket.equals("none") ? null : Path.of(socket).toAbsolutePath();
        return new ServerConfig(state, host, port,
                StorePassword.apply(store, storePasswordFile, System.getenv(StorePassword.ENV)), policy,
                Sharing.parse(sharing), mpsThreadPercentage, new SchedulerConfig(tickMs, roundMs, profileMs, observeMs, maxAttempts, scheduling.memoryMarginMiB(), scheduling.tandem(), scheduling.model(), maxGpusPerUser, knownProfiles, scheduling.online()),
                stopGraceMs, maxBodyBytes, stopJobsOnShutdown, ToolPath.fromEnvironment(),
                executor, new SlurmSettings(slurmPartition, slurmNodes, slurmGpusPerNode, slurmGpuMemoryMiB, slurmNvidiaSmi, slurmDcgmi, slurmGres, slurmPendingLimitMs),
                new SimulatedSettings(simulatedCluster, timeScale), Containment.parse(containment), unixSocket);
    }
}
