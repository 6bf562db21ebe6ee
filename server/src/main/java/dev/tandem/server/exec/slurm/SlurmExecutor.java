package dev.tandem.server.exec.slurm;

import dev.tandem.server.exec.ExecEvent;
import dev.tandem.server.exec.Binding;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.exec.JobCannotRun;
import dev.tandem.server.exec.ExecutorUnavailable;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.Launch;
import dev.tandem.server.exec.Launched;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.exec.LogScanner;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.gpu.GpuReadings;
import dev.tandem.server.store.RunLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Hands each run tandem decided to Slurm as a batch job pinned to the chosen node ({@code --nodelist}) and bound to
 * the chosen GPU(s) by CUDA_VISIBLE_DEVICES. tandem keeps the queue, the placement and the pairing; Slurm only
 * executes. No gpu GRES is requested: Slurm 22.05 cannot be told which GPU index to give, and two jobs that tandem
 * pairs on one GPU must really land on the same device, so the GPUs tandem uses should be left to it (a partition,
 * {@code --slurm-nodes} or {@code --slurm-gpus-per-node}). Output goes to {@code STATE_DIR/jobs/ID/output.log}, which
 * the state directory must therefore be on a file system the nodes share. While slurmctld cannot be reached the
 * executor is not {@link #ready()}: nothing is submitted, jobs are not polled, and a ping every few seconds tells
 * when it is back (the other clients take ~9 s to give up, which would stall the scheduler loop).
 */
public final class SlurmExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(SlurmExecutor.class);
    private static final long PROBE_MS = 2000;
    /**
     * How often the nodes' states, the GPUs other jobs hold and the cluster's settings are asked again
     * ({@link #refreshCluster}): a drained node, a GPU taken, or memory no longer enforced, is seen within this.
     */
    static final long REFRESH_MS = 5000;

    private final Path stateDir;
    private final SlurmCli cli;
    private final SlurmSettings settings;
    private final long stopGraceMs;
    private final Path script;
    /** Distinguishes this daemon's Slurm jobs from another tandem's on the same cluster (kept in the state dir). */
    private final String instance;
    private final Map<Integer, SlurmGpu> gpus = new HashMap<>();
    /** With --slurm-gres shard: each used node's shard GRES per GPU. */
    private final Map<String, Integer> shardsPerGpu = new HashMap<>();
    private final Map<Long, Tracked> tracked = new LinkedHashMap<>();
    /** The cluster's settings, read with its nodes ({@link #discoverGpus}); asked from the API's threads too. */
    private volatile SlurmConfig config;
    /** When a Slurm client last failed to reach slurmctld (0: it answers), and when it was last pinged since. */
    private long unreachableSince;
    private long lastProbe;
    /**
     * The used nodes that can take no new run, with why: Slurm lists them as down, drained, failing or not responding,
     * or their CPUs or memory are all given to Slurm jobs ({@link SlurmNode#full}).
     */
    private Map<String, String> unavailableNodes = Map.of();
    /**
     * The GPUs of used nodes that other Slurm jobs hold, as gpu GRES or as another tandem daemon's runs
     * (node -> node-local index -> who holds it).
     */
    private Map<String, Map<Integer, String>> heldBySlurm = Map.of();
    private long refreshDue;

    /** tandem's GPU id -> Slurm node and the GPU's index on that node. */
    record SlurmGpu(String node, int local) {}

    private static final class Tracked {
        final long jobId;
        final int attempt;
        final long slurmId; // -1: Slurm no longer knows it; only its exit file is left
        final LogScanner scanner;
        boolean stopRequested;
        boolean cancelSent;
        long stopAt = Long.MAX_VALUE;
        /** When this daemon began to track it (its submission, or its adoption after a restart): how long it may be PENDING. */
        final long trackedSince = System.currentTimeMillis();
        /** Why it was cancelled while Slurm still kept it waiting ({@link #giveUp}), or null. */
        String gaveUp;
        /** Whether its job was told that Slurm keeps it waiting ({@link ExecEvent.Waiting}). */
        boolean waitingSaid;

        Tracked(long jobId, int attempt, long slurmId, LogScanner scanner) {
            this.jobId = jobId;
            this.attempt = attempt;
            this.slurmId = slurmId;
            this.scanner = scanner;
        }
    }

    public SlurmExecutor(Path stateDir, ToolPath tools, SlurmSettings settings, long stopGraceMs) {
        this.stateDir = stateDir;
        this.cli = new SlurmCli(tools);
        this.settings = settings;
        this.stopGraceMs = stopGraceMs;
        this.script = install(stateDir);
        this.instance = instanceId(stateDir);
    }

    private static Path install(Path stateDir) {
        Path target = stateDir.resolve("bin").resolve("tandem-slurm-run.sh");
        try (InputStream in = SlurmExecutor.class.getResourceAsStream("tandem-slurm-run.sh")) {
            if (in == null) throw new ExecException("tandem-slurm-run.sh is missing from the tandem jar");
            Files.createDirectories(target.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path tmp = Files.createTempFile(target.getParent(), "tandem-slurm-run", ".tmp");
            Files.write(tmp, in.readAllBytes());
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new ExecException("cannot install the Slurm batch script in " + target.getParent() + ": " + e.getMessage(), e);
        }
    }

    private static String instanceId(Path stateDir) {
        Path f = stateDir.resolve("slurm-instance");
        try {
            if (Files.exists(f)) return Files.readString(f).strip();
            String id = UUID.randomUUID().toString().substring(0, 8);
            Files.writeString(f, id + "\n");
            return id;
        } catch (IOException e) {
            throw new ExecException("cannot read or write " + f + ": " + e.getMessage(), e);
        }
    }

    /** Nodes in slurm.conf order, GPUs numbered across them, so the ids stay the same across restarts. */
    @Override public List<GpuDevice> discoverGpus() {
        List<SlurmNode> nodes = SlurmNode.parseAll(cli.run("scontrol", List.of("show", "node", "-o")));
        config = SlurmConfig.parse(cli.run("scontrol", List.of("show", "config")));
        List<GpuDevice> out = new ArrayList<>();
        gpus.clear();
        shardsPerGpu.clear();
        for (SlurmNode n : nodes) {
            if (!used(n)) continue;
            if (settings.shardAccounting() && n.gpus() > 0) shardsPerGpu.put(n.name(), shardsPerGpu(n));
            int count = settings.gpusPerNode() > 0 ? Math.min(settings.gpusPerNode(), n.gpus()) : n.gpus();
            for (int i = 0; i < count; i++) {
                int id = out.size();
                gpus.put(id, new SlurmGpu(n.name(), i));
                out.add(new GpuDevice(id, n.name(), "slurm:" + n.name() + ":" + i, "Slurm " + n.name() + " gpu " + i, settings.gpuMemoryMiB()));
            }
        }
        if (out.isEmpty()) throw new ExecException("Slurm lists no node with gpu GRES" + (settings.partition() != null ? " in partition " + settings.partition() : ""));
        // which nodes are out and which GPUs other jobs hold: the first tick's refreshCluster, before the first decision
        return out;
    }

    private boolean used(SlurmNode n) {
        return (settings.nodes().isEmpty() || settings.nodes().contains(n.name())) && (settings.partition() == null || n.partitions().contains(settings.partition()));
    }

    /**
     * Takes the used nodes' states and free CPUs and memory from a listing; returns whether the set of unavailable ones
     * changed. GPUs stay as discovered: a node added to the cluster or given more GPUs counts after the daemon's next
     * start. A node whose CPUs other jobs took would have kept each run tandem put there PENDING while the node's GPU
     * sat idle and tandem counted the job as running.
     */
    private boolean followNodeStates(List<SlurmNode> nodes) {
        long defaultMemory = config == null ? 0 : config.defaultJobMemoryMb();
        Map<String, String> now = new java.util.TreeMap<>();
        for (SlurmNode n : nodes) {
            if (!used(n) || n.gpus() == 0) continue;
            String full = n.full(defaultMemory);
            if (n.unavailable()) now.put(n.name(), "is " + n.state());
            else if (full != null) now.put(n.name(), full);
        }
        if (now.equals(unavailableNodes)) return false;
        for (var e : now.entrySet()) {
            if (e.getValue().equals(unavailableNodes.get(e.getKey()))) continue;
            if (e.getValue().startsWith("is ")) log.warn("Slurm node {} {}: its GPUs take no new runs until it is back", e.getKey(), e.getValue());
            else log.info("Slurm node {} {}: its GPUs take no new runs until Slurm frees some", e.getKey(), e.getValue());
        }
        for (String back : unavailableNodes.keySet()) if (!now.containsKey(back)) log.info("Slurm node {} can take runs again", back);
        boolean changed = !now.keySet().equals(unavailableNodes.keySet());
        unavailableNodes = Map.copyOf(now);
        return changed;
    }

    /** Takes the GPUs other Slurm jobs hold on the used nodes ({@link GpusHeld}); returns whether they changed. */
    private boolean followHeldGpus(Map<String, Map<Integer, String>> all) {
        Set<String> usedNodes = new java.util.HashSet<>();
        for (SlurmGpu g : gpus.values()) usedNodes.add(g.node());
        Map<String, Map<Integer, String>> held = new java.util.TreeMap<>(all);
        held.keySet().retainAll(usedNodes);
        if (held.equals(heldBySlurm)) return false;
        log.info("GPUs other Slurm jobs hold (gpu GRES, or another tandem daemon's runs), which take no run of this daemon: {}", held.isEmpty() ? "none" : held);
        heldBySlurm = Map.copyOf(held);
        return true;
    }

    @Override public String unavailable(int gpu) {
        SlurmGpu g = gpus.get(gpu);
        if (g == null) return null;
        String why = unavailableNodes.get(g.node());
        if (why != null) return "Slurm node " + g.node() + " " + why;
        String holder = heldBySlurm.getOrDefault(g.node(), Map.of()).get(g.local());
        return holder != null ? heldBy(g, holder) : null;
    }

    private static String heldBy(SlurmGpu g, String holder) {
        return "GPU " + g.local() + " of Slurm node " + g.node() + " is held by " + holder;
    }

    /**
     * Every {@link #REFRESH_MS}, while slurmctld answers: {@code scontrol show node -o} for the nodes' states,
     * {@code scontrol show job -d -o} for the GPUs other jobs hold ({@link GpusHeld}), and {@code scontrol show config}
     * (an operator may turn memory enforcement off or on with {@code scontrol reconfigure}; submissions with a host
     * memory limit are then refused or taken from the next refresh on).
     */
    @Override public boolean refreshCluster(long nowMs) {
        if (nowMs < refreshDue || unreachableSince != 0) return false;
        refreshDue = nowMs + REFRESH_MS;
        boolean changed = false;
        SlurmCli.Result settings = cli.tryRun("scontrol", List.of("show", "config"));
        if (settings.code() == 0) followConfig(SlurmConfig.parse(settings.out()));
        SlurmCli.Result nodes = cli.tryRun("scontrol", List.of("show", "node", "-o"));
        if (nodes.code() == 0) changed |= followNodeStates(SlurmNode.parseAll(nodes.out()));
        SlurmCli.Result jobs = cli.tryRun("scontrol", List.of("show", "job", "-d", "-o"));
        if (jobs.code() == 0) changed |= followHeldGpus(GpusHeld.parse(jobs.out(), instance));
        List.of(settings, nodes, jobs).stream().filter(r -> r.code() != 0).findFirst().ifPresent(r ->
                log.warn("cannot ask Slurm about its nodes, jobs or settings (again in {} s): {}", REFRESH_MS / 1000, r.err().strip()));
        return changed;
    }

    private void followConfig(SlurmConfig now) {
        Optional<String> was = config == null ? Optional.empty() : config.memoryNotEnforced(), is = now.memoryNotEnforced();
        if (was.isEmpty() && is.isPresent()) log.warn("Slurm no longer enforces a job's memory: submissions with a host memory limit are refused from now on ({})", is.get());
        if (was.isPresent() && is.isEmpty()) log.info("Slurm enforces a job's memory again: submissions with a host memory limit are taken");
        config = now;
    }

    /** Slurm 22.05 spreads a node's shards evenly over its GPUs and takes one job's shards from one GPU. */
    static int shardsPerGpu(SlurmNode n) {
        if (n.shards() < 2 * n.gpus() || n.shards() % n.gpus() != 0) {
            throw new ExecException("--slurm-gres shard needs Gres=shard:N on each node, N a multiple of its gpu count and at least 2 per GPU: node "
                    + n.name() + " has " + n.gpus() + " gpu and " + n.shards() + " shard");
        }
        return n.shards() / n.gpus();
    }

    @Override public Launched start(Launch l) {
        return bind(l).runHere();
    }

    /**
     * Checks and writes the run's files here; {@code sbatch} (about a second) is the binding's slow part, and the
     * Slurm job is tracked when it is finished, on the loop's thread.
     */
    @Override public Binding<?> bind(Launch l) {
        if (tracked.containsKey(l.jobId())) throw new ExecException("job " + l.jobId() + " is already running");
        if (!ready()) throw new ExecutorUnavailable("slurmctld does not answer");
        if (l.runAs() != null && !l.runAs().name().equals(System.getProperty("user.name"))) {
            throw new JobCannotRun("job " + l.jobId() + ": the Slurm executor submits every job as the daemon's user " + System.getProperty("user.name")
                    + ", not as " + l.runAs().name() + "; map this user to the daemon's account or use the local executor");
        }
        cannotEnforce(l.limits()).ifPresent(why -> { throw new JobCannotRun("job " + l.jobId() + " asks for limits: " + why); });
        List<SlurmGpu> placed = l.gpus().stream().map(g -> gpus.get(g.index())).toList();
        if (placed.contains(null)) throw new ExecException("job " + l.jobId() + ": GPU(s) not known to the Slurm executor");
        String node = placed.getFirst().node();
        if (placed.stream().anyMatch(g -> !g.node().equals(node))) throw new ExecException("job " + l.jobId() + ": gangs across Slurm nodes are not supported");
        Path dir = LocalExecutor.jobDir(stateDir, l.jobId());
        Path logFile = dir.resolve("output.log");
        // a daemon that crashed between sbatch and recording the Slurm id left the job submitted: take it over
        String listing = run("scontrol", List.of("show", "job", "-d", "-o"));
        SlurmJob earlier = find(SlurmJob.parseAll(listing), l.jobId(), l.attempt());
        if (earlier == null || earlier.finished()) notTakenSinceLastLook(node, placed, listing);
        try {
            Files.createDirectories(dir);
            if (earlier != null && !earlier.finished()) {
                tracked.put(l.jobId(), new Tracked(l.jobId(), l.attempt(), earlier.id(), new LogScanner(logFile, size(logFile))));
                return Binding.done(new Launched(earlier.id(), System.currentTimeMillis()));
            }
            Files.deleteIfExists(dir.resolve("exit-" + l.attempt()));
            Files.deleteIfExists(dir.resolve(JobFiles.NO_WORKDIR + l.attempt()));
            Files.write(dir.resolve("workdir-" + l.attempt()), JobFiles.nulSeparated(List.of(l.workdir())));
            Files.write(dir.resolve("argv-" + l.attempt()), JobFiles.nulSeparated(l.argv()));
            Files.write(dir.resolve("env-" + l.attempt()), JobFiles.nulSeparated(JobFiles.env(l, placed)));
            StepSampling.prepare(dir, l.attempt(), l.profileMs(), settings);
            String header = String.format("[tandem] attempt %d of job %d on GPU(s) %s (Slurm node %s, GPU %s) at %s%n", l.attempt(), l.jobId(),
                    l.gpus().stream().map(g -> String.valueOf(g.index())).collect(Collectors.joining(",")), node,
                    placed.stream().map(g -> String.valueOf(g.local())).collect(Collectors.joining(",")), Instant.now());
            Files.writeString(logFile, header, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            long offset = Files.size(logFile);
            List<String> args = sbatchArgs(l, node, placed, dir, logFile);
            return new Binding<String>() {
                // sbatch is not retried here: if it timed out after submitting, the next try of this attempt finds that job above
                @Override public String call() { return cli.run("sbatch", args); }

                @Override public Launched finish(String out) {
                    long slurmId;
                    try {
                        slurmId = Long.parseLong(out.strip().split(";")[0]);
                    } catch (NumberFormatException e) {
                        throw new ExecException("sbatch did not print a job id for job " + l.jobId(), e);
                    }
                    tracked.put(l.jobId(), new Tracked(l.jobId(), l.attempt(), slurmId, new LogScanner(logFile, offset)));
                    log.debug("job {} attempt {}: Slurm job {} on {}", l.jobId(), l.attempt(), slurmId, node);
                    return new Launched(slurmId, System.currentTimeMillis());
                }

                @Override public void failed(RuntimeException e) {
                    if (e instanceof ExecutorUnavailable u) unreachable(u);
                }
            };
        } catch (IOException e) {
            throw new ExecException("cannot prepare job " + l.jobId() + " in " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Refuses for now a start on GPUs that another tandem daemon's run took since this one last looked ({@link #REFRESH_MS}):
     * both saw the GPU idle. The job goes back to the queue without using an attempt, and the cluster is looked at again
     * at the next tick, before the next decision, which then sees the GPU held. (Two daemons that submit within the same
     * second can still both miss the other.)
     */
    private void notTakenSinceLastLook(String node, List<SlurmGpu> placed, String listing) {
        String taken = taken(GpusHeld.parse(listing, instance), node, placed);
        if (taken == null) return;
        refreshDue = 0; // not taken in here: the look tells the scheduler that the usable GPUs changed
        throw new ExecutorUnavailable(taken);
    }

    /** Why one of the GPUs {@code placed} on {@code node} is someone else's now, or null. */
    static String taken(Map<String, Map<Integer, String>> held, String node, List<SlurmGpu> placed) {
        Map<Integer, String> onNode = held.getOrDefault(node, Map.of());
        for (SlurmGpu g : placed) {
            String holder = onNode.get(g.local());
            if (holder != null) return heldBy(g, holder);
        }
        return null;
    }

    /** Every value is its own argv element of sbatch: the workdir needs no quoting and the job's argv is not here at all. */
    List<String> sbatchArgs(Launch l, String node, List<SlurmGpu> placed, Path dir, Path logFile) {
        String comment = new TandemComment(l.jobId(), l.attempt(), instance, placed.stream().map(SlurmGpu::local).toList()).text();
        List<String> a = new ArrayList<>(List.of("--parsable", "--no-requeue", "--nodelist=" + node,
                "--job-name=tandem-" + l.jobId() + "-" + l.attempt(), "--comment=" + comment,
                "--output=" + logFile, "--open-mode=append", "--chdir=" + l.workdir()));
        if (settings.partition() != null) a.add("--partition=" + settings.partition());
        if (l.limits().hostMemoryMiB() != null) a.add("--mem=" + l.limits().hostMemoryMiB() + "M"); // per node: a job has one
        // accounting only: Slurm charges the shards to a GPU of its choosing; CUDA_VISIBLE_DEVICES stays tandem's
        if (settings.shardAccounting()) a.add("--gres=shard:" + Math.max(1, shardsPerGpu.get(node) / Math.max(1, l.tenants())));
        a.add(script.toString());
        a.add(dir.toString());
        a.add(String.valueOf(l.attempt()));
        return a;
    }

    /** scancel sends SIGTERM, then SIGKILL after slurm.conf's KillWait; a second scancel -s KILL after --stop-grace. */
    @Override public void stop(long jobId) {
        Tracked t = tracked.get(jobId);
        if (t == null || t.stopRequested) return;
        t.stopRequested = true;
        t.stopAt = System.currentTimeMillis() + stopGraceMs;
        cancel(t);
    }

    /** scancel once; while slurmctld is unreachable it is tried again on every poll until it gets through. */
    private void cancel(Tracked t) {
        if (t.slurmId <= 0) return;
        if (!ready()) return;
        try {
            run("scancel", List.of(String.valueOf(t.slurmId)));
            t.cancelSent = true;
        } catch (ExecutorUnavailable e) {
            log.warn("job {}: scancel of Slurm job {} did not reach slurmctld; trying again", t.jobId, t.slurmId);
        } catch (ExecException e) {
            t.cancelSent = true; // Slurm refused it (the job has ended meanwhile): nothing left to cancel
        }
    }

    /** Runs a Slurm client; a controller that does not answer makes the executor unready until a ping gets through. */
    private String run(String tool, List<String> args) {
        try {
            return cli.run(tool, args);
        } catch (ExecutorUnavailable e) {
            unreachable(e);
            throw e;
        }
    }

    /** slurmctld did not answer: not ready until a ping gets through. */
    private void unreachable(ExecutorUnavailable e) {
        long now = System.currentTimeMillis();
        if (unreachableSince == 0) {
            unreachableSince = now;
            log.warn("slurmctld does not answer; not submitting or polling until it does: {}", e.getMessage());
        }
        lastProbe = now;
    }

    @Override public boolean ready() {
        if (unreachableSince == 0) return true;
        long now = System.currentTimeMillis();
        if (now - lastProbe < PROBE_MS) return false;
        lastProbe = now;
        SlurmCli.Result r = cli.tryRun("scontrol", List.of("ping"));
        if (r.code() != 0 || !r.out().contains("UP")) return false;
        log.info("slurmctld answers again after {} s", (now - unreachableSince) / 1000);
        unreachableSince = 0;
        return true;
    }

    @Override public boolean adopt(long jobId, int attempt, Long pid, Long pidStarted) {
        Path dir = LocalExecutor.jobDir(stateDir, jobId);
        Path logFile = dir.resolve("output.log");
        SlurmJob j = find(jobs().values(), jobId, attempt);
        if (j != null) {
            long from = j.finished() ? Math.max(0, size(logFile) - (256 << 10)) : size(logFile);
            tracked.put(jobId, new Tracked(jobId, attempt, j.id(), new LogScanner(logFile, from)));
            log.info("re-adopted job {} (Slurm job {}, {})", jobId, j.id(), j.state());
            return true;
        }
        if (Files.exists(dir.resolve("exit-" + attempt))) {
            tracked.put(jobId, new Tracked(jobId, attempt, -1, new LogScanner(logFile, Math.max(0, size(logFile) - (256 << 10)))));
            return true;
        }
        return false;
    }

    /** The Slurm job of this run, by its comment (the job id tandem recorded may be missing after a crash). */
    private SlurmJob find(java.util.Collection<SlurmJob> jobs, long jobId, int attempt) {
        SlurmJob found = null;
        for (SlurmJob j : jobs) {
            if (TandemComment.parse(j.comment()).filter(c -> c.names(jobId, attempt, instance)).isPresent() && (found == null || j.id() > found.id())) found = j;
        }
        return found;
    }

    private Map<Long, SlurmJob> jobs() {
        // one call for all jobs: 'scontrol show job ID' fails on a purged id, and squeue has no exit code
        Map<Long, SlurmJob> byId = new HashMap<>();
        for (SlurmJob j : SlurmJob.parseAll(run("scontrol", List.of("show", "job", "-o")))) byId.put(j.id(), j);
        return byId;
    }

    @Override public List<ExecEvent> poll() {
        List<ExecEvent> events = new ArrayList<>();
        if (tracked.isEmpty() || !ready()) return events;
        long now = System.currentTimeMillis();
        Map<Long, SlurmJob> jobs;
        try {
            jobs = jobs();
        } catch (ExecException e) {
            log.warn("cannot ask Slurm about jobs (retrying next tick): {}", e.getMessage());
            return events;
        }
        for (var it = tracked.values().iterator(); it.hasNext(); ) {
            Tracked t = it.next();
            SlurmJob j = t.slurmId > 0 ? jobs.get(t.slurmId) : null;
            boolean ended = j == null || j.finished();
            List<Long> progress = ended ? t.scanner.finish() : t.scanner.scan();
            for (long iter : progress) events.add(new ExecEvent.Progress(t.jobId, iter, now));
            if (!ended) {
                if (j.state().equals("PENDING")) waiting(t, j, now, events);
                if (t.stopRequested && !t.cancelSent) cancel(t);
                if (now >= t.stopAt) cli.tryRun("scancel", List.of("--signal=KILL", "--full", String.valueOf(t.slurmId)));
                continue;
            }
            // a run that could not enter its working directory on the node, or that Slurm kept waiting until it was
            // cancelled, did not run: no exit status of the job's
            String noWorkdir = JobFiles.readText(LocalExecutor.jobDir(stateDir, t.jobId).resolve(JobFiles.NO_WORKDIR + t.attempt));
            String didNotRun = noWorkdir != null ? noWorkdir : t.gaveUp;
            Integer code = didNotRun != null ? null : exitCode(t, j);
            String lost = didNotRun != null ? didNotRun : code == null ? lost(t, j) : null;
            if (lost != null) log.info("job {}: {}", t.jobId, lost);
            // over its host memory: Slurm's OUT_OF_MEMORY (a cgroup's limit), or its step daemon's word where accounting
            // killed it (the job then ends FAILED, by signal 9)
            boolean overMemory = code != null && (j != null && j.state().equals("OUT_OF_MEMORY") || t.scanner.slurmMemoryKillSeen());
            events.add(new ExecEvent.Exited(t.jobId, code, t.scanner.oomSeen(), lost, null, overMemory));
            it.remove();
        }
        return events;
    }

    /**
     * A run Slurm keeps PENDING: its job is told why once it has waited longer than a start takes (Slurm starts a job on a
     * node with room within a second or two), and the run is given up after {@link SlurmSettings#pendingLimitMs}.
     */
    private void waiting(Tracked t, SlurmJob j, long now, List<ExecEvent> events) {
        long waited = now - t.trackedSince;
        if (!t.waitingSaid && waited >= Math.min(15_000, settings.pendingLimitMs() / 2)) {
            t.waitingSaid = true;
            events.add(new ExecEvent.Waiting(t.jobId, "Slurm keeps its run waiting: Slurm job " + j.id() + " PENDING" + slurmReason(j)
                    + "; cancelled there if it has not started after " + settings.pendingLimitMs() / 1000 + " s"));
        }
        if (t.gaveUp == null && waited >= settings.pendingLimitMs()) giveUp(t, j, now);
    }

    /** Slurm's reason for a job's state, as " (REASON)", or nothing where it gives none. */
    private static String slurmReason(SlurmJob j) {
        return j.reason().isBlank() || j.reason().equals("None") ? "" : " (" + j.reason().replace('_', ' ') + ")";
    }

    /**
     * Cancels a run Slurm has kept waiting for {@link SlurmSettings#pendingLimitMs}: its node lacks what the job asks for
     * (CPUs or memory other jobs took since tandem last looked, more memory than is free), a reservation or a hold keeps
     * it, or a limit of its account. Its GPU would otherwise stay booked for a job that does not run while tandem counts
     * it as running; once Slurm says it has ended, the job goes back to tandem's queue as a run that did not run, with
     * Slurm's reason.
     */
    private void giveUp(Tracked t, SlurmJob j, long now) {
        t.gaveUp = "Slurm kept Slurm job " + j.id() + " PENDING for " + (now - t.trackedSince) / 1000 + " s" + slurmReason(j) + "; cancelled there, it did not run";
        log.info("job {}: {}", t.jobId, t.gaveUp);
        stop(t.jobId);
    }

    /** Why a run has no exit status, in Slurm's words: NODE_FAIL on which node, PREEMPTED, or forgotten by Slurm. */
    private static String lost(Tracked t, SlurmJob j) {
        if (j == null) return "Slurm job " + t.slurmId + " is no longer known to Slurm and left no exit status";
        return "Slurm job " + j.id() + " ended " + j.state() + (j.nodeList().isBlank() ? "" : " on node " + j.nodeList()) + slurmReason(j)
                + " and left no exit status";
    }

    /** The wrapper's exit file when the job ended by itself; a node failure or preemption has none that counts. */
    private Integer exitCode(Tracked t, SlurmJob j) {
        Integer fromFile = JobFiles.readExit(LocalExecutor.jobDir(stateDir, t.jobId).resolve("exit-" + t.attempt));
        if (j == null) return fromFile;
        Integer fromSlurm = j.tandemExitCode();
        if (fromSlurm == null) return null;
        return fromFile != null && (j.state().equals("COMPLETED") || j.state().equals("FAILED")) ? fromFile : fromSlurm;
    }

    /** Read back from the files the batch script's sampler wrote in the job's directory on the node. */
    @Override public Optional<GpuReadings> jobReadings(long jobId, int attempt, List<Integer> gpuIds) {
        Map<Integer, Integer> localToId = new HashMap<>();
        for (int id : gpuIds) {
            SlurmGpu g = gpus.get(id);
            if (g != null) localToId.put(g.local(), id);
        }
        return Optional.of(StepSampling.read(LocalExecutor.jobDir(stateDir, jobId), attempt, localToId));
    }

    @Override public String containment() { return "Slurm's: each run is a batch job, which Slurm contains and cleans up"; }

    /**
     * A host memory limit becomes the job's {@code --mem}, where the cluster enforces it ({@link SlurmConfig#memoryNotEnforced});
     * Slurm has no limit on a job's processes.
     */
    @Override public Optional<String> cannotEnforce(RunLimits limits) {
        if (limits.processes() != null) return Optional.of("Slurm sets no limit on the number of a job's processes (the local executor's run cgroups do)");
        if (limits.hostMemoryMiB() == null) return Optional.empty();
        SlurmConfig c = config;
        return c == null ? Optional.of("the Slurm executor has not read the cluster's configuration yet") : c.memoryNotEnforced();
    }

    @Override public Set<Long> liveJobs() { return Set.copyOf(tracked.keySet()); }

    @Override public void stopAll() {
        for (long id : List.copyOf(tracked.keySet())) stop(id);
        long deadline = System.currentTimeMillis() + stopGraceMs + 10_000;
        while (!tracked.isEmpty() && System.currentTimeMillis() < deadline) {
            poll();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override public void close() {
        // Slurm keeps running the jobs; a restarted daemon finds them again by their comment
        tracked.clear();
    }

    private static long size(Path f) {
        try {
            return Files.exists(f) ? Files.size(f) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
