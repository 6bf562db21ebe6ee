package dev.tandem.server.exec;

import dev.tandem.server.gpu.NvidiaSmiParser;
import dev.tandem.server.store.RunLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs each job as a child process of the daemon: the argv list as given (through {@code tandem-run.sh}, which
 * records the exit status), in the job's working directory, with its environment plus CUDA_VISIBLE_DEVICES set
 * to its GPUs' UUIDs. Output goes straight to {@code STATE_DIR/jobs/ID/output.log} (no pipe through the daemon),
 * so a job outlives a daemon crash and a restarted daemon re-adopts it by pid and start time.
 *
 * <p>Each run leads a Unix session of its own ({@code setsid}), so a Ctrl-C or signal meant for the daemon's
 * process group never reaches a job, and where this daemon can make cgroups ({@link RunCgroups}) each run has a
 * cgroup v2 of its own, which nothing the run starts can leave. A run ends when its main process has ended and
 * nothing it left behind is still alive (its cgroup's members, else {@link Leftovers}): those get SIGTERM, then
 * SIGKILL after the stop grace, and are named in the job's history, so a finished job cannot keep holding its
 * GPU's memory.
 */
public final class LocalExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(LocalExecutor.class);

    private final Path stateDir;
    private final ToolPath tools;
    private final long stopGraceMs;
    private final int mpsSharedThreadPercentage;
    private final Path wrapper;
    private final MpsControl mps;
    private final Map<Long, Tracked> tracked = new LinkedHashMap<>();
    /** util-linux's setsid, or null where there is none (runs then share the daemon's session; said at start). */
    private final Path setsid;
    /** util-linux's setpriv, which a root daemon uses to run jobs as their owners (null: not installed). */
    private final Path setpriv;
    /** The daemon's own account. */
    private final UnixAccount self;
    /** A cgroup per run, or null where runs are held by their session and marker only. */
    private final RunCgroups cgroups;
    /** Why there are no cgroups (null where there are). */
    private final String noCgroups;

    /** A run the executor watches: its own child, or a process re-adopted after a restart (process is then null). */
    private static final class Tracked {
        final long jobId;
        final int attempt;
        final ProcessHandle handle;
        final Process process;
        final LogScanner scanner;
        /** The run's session: the pid of its wrapper, which setsid made a session leader (-1: not known). */
        final long session;
        /** The run's cgroups (null: none), and the limits they enforce. */
        final RunCgroups.RunCgroup cgroup;
        final RunLimits limits;
        boolean stopRequested;
        long killAt = Long.MAX_VALUE;
        /** When left-behind processes get SIGKILL (MAX_VALUE: none seen yet), and who they were. */
        long leftoversKillAt = Long.MAX_VALUE;
        String leftovers;

        Tracked(long jobId, int attempt, ProcessHandle handle, Process process, LogScanner scanner, long session, RunCgroups.RunCgroup cgroup,
                RunLimits limits) {
            this.jobId = jobId;
            this.attempt = attempt;
            this.handle = handle;
            this.process = process;
            this.scanner = scanner;
            this.session = session;
            this.cgroup = cgroup;
            this.limits = limits;
        }
    }

    public LocalExecutor(Path stateDir, ToolPath tools, Sharing sharing, long stopGraceMs, int mpsSharedThreadPercentage) {
        this(stateDir, tools, sharing, stopGraceMs, mpsSharedThreadPercentage, Containment.AUTO);
    }

    /** @throws ExecException with {@link Containment#CGROUP} where cgroups cannot be used here, saying why */
    public LocalExecutor(Path stateDir, ToolPath tools, Sharing sharing, long stopGraceMs, int mpsSharedThreadPercentage, Containment containment) {
        this.stateDir = stateDir;
        this.tools = tools;
        this.stopGraceMs = stopGraceMs;
        this.mpsSharedThreadPercentage = mpsSharedThreadPercentage;
        this.wrapper = installWrapper(stateDir);
        this.mps = sharing == Sharing.MPS ? new MpsControl(tools, stateDir) : null;
        this.setsid = utilLinux(tools, "setsid");
        this.setpriv = utilLinux(tools, "setpriv");
        this.self = UnixAccount.current();
        RunCgroups found = null;
        String why = "not asked for (--containment session)";
        if (containment != Containment.SESSION) {
            try {
                found = RunCgroups.open(stateDir);
            } catch (RunCgroups.Unavailable e) {
                if (containment == Containment.CGROUP) throw new ExecException("--containment cgroup: " + e.getMessage());
                why = e.getMessage();
            }
        }
        this.cgroups = found;
        this.noCgroups = found == null ? why : null;
        if (setsid == null) log.warn("no setsid (util-linux) found: jobs share the daemon's session, and a Ctrl-C on a foreground daemon reaches them");
        if (mps != null) mps.start();
    }

    /**
     * A util-linux tool from the system's own directories first (the tool path may start with test doubles or a
     * user's directories), else from the tool path; null where there is none.
     */
    private static Path utilLinux(ToolPath tools, String name) {
        return ToolPath.system(name).or(() -> tools.find(name)).orElse(null);
    }

    @Override public String containment() {
        String session = setsid == null ? "no Unix session per run (no setsid)" : "a Unix session per run";
        if (cgroups == null) {
            return session + " (no cgroups: " + noCgroups + "), left-behind processes found by session and " + Leftovers.MARKER;
        }
        return "a cgroup v2 per run under " + cgroups.parent() + " (limits: " + cgroups.limits() + ") and " + session;
    }

    /** util-linux's setpriv, run by the wrapper with the job's account ({@link UnixAccount#switchTo}). */
    List<String> switchTo(UnixAccount a) {
        if (setpriv == null) throw new ExecException("cannot run a job as " + a.name() + ": setpriv (util-linux) is not installed");
        return a.switchTo(setpriv);
    }

    /** The environment a job run as another account starts from, as a login would give (no daemon variables). */
    static Map<String, String> accountEnv(UnixAccount a) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", a.home());
        env.put("USER", a.name());
        env.put("LOGNAME", a.name());
        env.put("SHELL", a.shell());
        String lang = System.getenv("LANG");
        if (lang != null) env.put("LANG", lang);
        return env;
    }

    /** The value of {@link Leftovers#MARKER} in a run's environment. */
    String marker(long jobId, int attempt) { return jobDir(stateDir, jobId) + "#" + attempt; }

    private static Path installWrapper(Path stateDir) {
        Path bin = stateDir.resolve("bin");
        Path target = bin.resolve("tandem-run.sh");
        try (InputStream in = LocalExecutor.class.getResourceAsStream("tandem-run.sh")) {
            if (in == null) throw new ExecException("tandem-run.sh is missing from the tandem jar");
            Files.createDirectories(bin, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path tmp = Files.createTempFile(bin, "tandem-run", ".tmp");
            Files.write(tmp, in.readAllBytes());
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
            Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new ExecException("cannot install the job wrapper in " + bin + ": " + e.getMessage(), e);
        }
    }

    /** This machine's name as the kernel has it (no DNS lookup, which can hang where name resolution is broken). */
    static String hostName() {
        try {
            String name = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (!name.isEmpty()) return name;
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return "localhost";
    }

    public static Path jobDir(Path stateDir, long jobId) { return stateDir.resolve("jobs").resolve(String.valueOf(jobId)); }

    public static Path logFile(Path stateDir, long jobId) { return jobDir(stateDir, jobId).resolve("output.log"); }

    @Override public List<GpuDevice> discoverGpus() { return discoverGpus(tools); }

    /** This machine's GPUs as {@code nvidia-smi --query-gpu} lists them. */
    public static List<GpuDevice> discoverGpus(ToolPath tools) {
        Path smi = tools.require("nvidia-smi", "it comes with the NVIDIA driver");
        List<String> cmd = new ArrayList<>();
        cmd.add(smi.toString());
        cmd.addAll(NvidiaSmiParser.INVENTORY_ARGS);
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new ExecException("nvidia-smi did not answer within 30 s");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) throw new ExecException("nvidia-smi exited with " + p.exitValue() + ": " + text.strip());
            List<GpuDevice> gpus = NvidiaSmiParser.parseInventory(text.lines().toList(), hostName());
            if (gpus.isEmpty()) throw new ExecException("nvidia-smi lists no GPU");
            return gpus;
        } catch (IOException e) {
            throw new ExecException("cannot run nvidia-smi: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecException("interrupted while running nvidia-smi", e);
        }
    }

    @Override public Launched start(Launch l) {
        if (tracked.containsKey(l.jobId())) throw new ExecException("job " + l.jobId() + " is already running");
        Path dir = jobDir(stateDir, l.jobId());
        Path logFile = dir.resolve("output.log");
        // setsid execs in place (a child of the JVM is no group leader), so the pid is the wrapper's and the session's id
        List<String> cmd = new ArrayList<>();
        if (setsid != null) cmd.add(setsid.toString());
        cannotEnforce(l.limits()).ifPresent(why -> { throw new JobCannotRun("job " + l.jobId() + " asks for limits: " + why); });
        RunCgroups.RunCgroup cgroup = cgroups == null ? null : cgroups.create(l.jobId(), l.attempt(), l.limits());
        Path cgroupList = cgroupFile(dir, l.attempt());
        cmd.addAll(List.of("/bin/sh", wrapper.toString(), dir.toString(), String.valueOf(l.attempt()), cgroup == null ? "-" : cgroupList.toString(), "--"));
        // the wrapper stays the daemon's (it writes the exit status into the state directory); the job gets its owner's rights
        boolean switchUser = l.runAs() != null && l.runAs().uid() != self.uid();
        if (switchUser) cmd.addAll(switchTo(l.runAs()));
        cmd.addAll(l.argv());
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(new File(l.workdir()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Map<String, String> env = pb.environment();
        DAEMON_SECRETS.forEach(env::remove);
        if (switchUser) {
            // another user's job inherits nothing of the daemon's environment: only its account's basics and what it asked for
            env.clear();
            env.putAll(accountEnv(l.runAs()));
        }
        env.putAll(l.env());
        env.putAll(deviceEnv(l));
        env.put(Leftovers.MARKER, marker(l.jobId(), l.attempt()));
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(dir.resolve("exit-" + l.attempt()));
            if (cgroup != null) RunCgroups.record(cgroupList, cgroup, l.limits());
            String header = String.format("[tandem] attempt %d of job %d on GPU(s) %s at %s%n", l.attempt(), l.jobId(),
                    l.gpus().stream().map(g -> String.valueOf(g.index())).collect(Collectors.joining(",")), Instant.now());
            Files.writeString(logFile, header, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            long offset = Files.size(logFile);
            Process p = ThreadPriority.atNormal(pb::start); // the job gets no share of a raised priority of the thread starting it
            ProcessHandle h = p.toHandle();
            tracked.put(l.jobId(), new Tracked(l.jobId(), l.attempt(), h, p, new LogScanner(logFile, offset), setsid != null ? h.pid() : -1, cgroup,
                    l.limits()));
            return new Launched(h.pid(), Processes.startMillis(h));
        } catch (IOException e) {
            if (cgroup != null) RunCgroups.remove(cgroup);
            throw new ExecException("cannot start job " + l.jobId() + " (" + l.argv().get(0) + " in " + l.workdir() + "): " + e.getMessage(), e);
        }
    }

    /** CUDA_VISIBLE_DEVICES by UUID (indices differ between nvidia-smi's PCI order and CUDA's default order), and MPS limits. */
    Map<String, String> deviceEnv(Launch l) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CUDA_VISIBLE_DEVICES", l.gpus().stream().map(g -> g.uuid().startsWith("GPU-") || g.uuid().startsWith("MIG-") ? g.uuid() : String.valueOf(g.index()))
                .collect(Collectors.joining(",")));
        env.put("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        env.put("TANDEM_JOB_ID", String.valueOf(l.jobId()));
        env.put("TANDEM_ATTEMPT", String.valueOf(l.attempt()));
        env.put("TANDEM_GPUS", l.gpus().stream().map(g -> String.valueOf(g.index())).collect(Collectors.joining(",")));
        if (mps != null) {
            env.putAll(mps.clientEnv());
            env.put("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", String.valueOf(l.tenants() > 1 ? mpsSharedThreadPercentage : 100));
            if (l.memoryMiB() > 0) {
                // device ordinals as the job sees them (0..n-1 after CUDA_VISIBLE_DEVICES)
                List<String> limits = new ArrayList<>();
                for (int i = 0; i < l.gpus().size(); i++) limits.add(i + "=" + l.memoryMiB() + "MB");
                env.put("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", String.join(",", limits));
            }
        }
        return env;
    }

    @Override public void stop(long jobId) {
        Tracked t = tracked.get(jobId);
        if (t == null || t.stopRequested) return;
        t.stopRequested = true;
        t.killAt = System.currentTimeMillis() + stopGraceMs;
        if (t.handle == null) return;
        // signal the job, not the wrapper, so that the wrapper lives to record how the job ended
        List<ProcessHandle> children = t.handle.descendants().toList();
        if (children.isEmpty()) t.handle.destroy();
        for (ProcessHandle c : children) c.destroy();
    }

    @Override public boolean adopt(long jobId, int attempt, Long pid, Long pidStarted) {
        Path dir = jobDir(stateDir, jobId);
        Path logFile = dir.resolve("output.log");
        Long p = pid != null ? pid : readPid(dir.resolve("pid-" + attempt));
        Optional<ProcessHandle> h = p == null ? Optional.empty() : ProcessHandle.of(p);
        if (h.isPresent() && Processes.alive(h.get()) && ours(h.get(), pidStarted, dir, attempt)) {
            tracked.put(jobId, new Tracked(jobId, attempt, h.get(), null, new LogScanner(logFile, size(logFile)), p,
                    RunCgroups.recorded(cgroupFile(dir, attempt)), RunCgroups.recordedLimits(cgroupFile(dir, attempt))));
            log.info("re-adopted job {} (pid {})", jobId, p);
            return true;
        }
        if (Files.exists(dir.resolve("exit-" + attempt))) {
            // it ended while no daemon watched: report its recorded status on the next poll; look at the end of its
            // output for an out-of-memory message
            tracked.put(jobId, new Tracked(jobId, attempt, null, null, new LogScanner(logFile, Math.max(0, size(logFile) - (256 << 10))),
                    p == null ? -1 : p, RunCgroups.recorded(cgroupFile(dir, attempt)), RunCgroups.recordedLimits(cgroupFile(dir, attempt))));
            return true;
        }
        return false;
    }

    private static boolean ours(ProcessHandle h, Long pidStarted, Path dir, int attempt) {
        Long started = Processes.startMillis(h);
        if (pidStarted != null && started != null) return Math.abs(started - pidStarted) <= 1000;
        return Processes.arguments(h).map(a -> a.contains(dir.toString()) && a.contains(String.valueOf(attempt))).orElse(false);
    }

    @Override public List<ExecEvent> poll() {
        List<ExecEvent> events = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (var it = tracked.values().iterator(); it.hasNext(); ) {
            Tracked t = it.next();
            boolean alive = t.handle != null && Processes.alive(t.handle);
            if (!alive && stopLeftovers(t, now)) alive = true; // the run is not over while what it left behind lives
            List<Long> progress = alive ? t.scanner.scan() : t.scanner.finish();
            for (long iter : progress) events.add(new ExecEvent.Progress(t.jobId, iter, now));
            if (alive) {
                if (t.handle != null && now >= t.killAt && Processes.alive(t.handle)) {
                    t.handle.descendants().forEach(ProcessHandle::destroyForcibly);
                    t.handle.destroyForcibly();
                }
                continue;
            }
            String note = t.leftovers;
            boolean overMemory = t.cgroup != null && t.limits.hostMemoryMiB() != null && RunCgroups.memoryKills(t.cgroup) > 0;
            if (t.cgroup != null) {
                String hit = RunCgroups.limitsHit(t.cgroup, t.limits);
                if (hit != null) note = note == null ? hit : note + "; " + hit;
                RunCgroups.remove(t.cgroup);
            }
            events.add(new ExecEvent.Exited(t.jobId, exitCode(t), t.scanner.oomSeen(), null, note, overMemory));
            it.remove();
        }
        return events;
    }

    /**
     * Signals what the run left behind once its main process ended: SIGTERM at first sight, SIGKILL after the stop
     * grace. Returns whether any is still alive.
     */
    private boolean stopLeftovers(Tracked t, long now) {
        List<ProcessHandle> left = leftovers(t);
        if (left.isEmpty()) return false;
        if (t.leftoversKillAt == Long.MAX_VALUE) {
            t.leftovers = "stopped " + left.size() + " process(es) it left running after its main process ended: " + Leftovers.describe(left);
            log.info("job {}: {}", t.jobId, t.leftovers);
            t.leftoversKillAt = now + stopGraceMs;
            left.forEach(ProcessHandle::destroy);
        } else if (now >= t.leftoversKillAt) {
            if (t.cgroup != null) RunCgroups.kill(t.cgroup.main());
            left.forEach(ProcessHandle::destroyForcibly);
        }
        return true;
    }

    /** What the run left behind: its cgroup's live members, and whatever its session or marker still finds. */
    private List<ProcessHandle> leftovers(Tracked t) {
        Map<Long, ProcessHandle> left = new LinkedHashMap<>();
        if (t.cgroup != null) {
            for (long pid : RunCgroups.members(t.cgroup.main())) {
                if (pid != t.session) ProcessHandle.of(pid).filter(Processes::alive).ifPresent(h -> left.put(pid, h));
            }
        }
        for (ProcessHandle h : Leftovers.of(t.session, marker(t.jobId, t.attempt))) left.putIfAbsent(h.pid(), h);
        return List.copyOf(left.values());
    }

    /** Where a run's cgroups are listed for its wrapper and for a restarted daemon. */
    private static Path cgroupFile(Path jobDir, int attempt) { return jobDir.resolve("cgroup-" + attempt); }

    @Override public boolean owns(long pid) {
        String stat = Processes.stat(pid);
        if (stat == null) return false; // gone, or not visible from here: not known to be one of ours
        long session = Processes.session(stat);
        for (Tracked t : tracked.values()) if (t.session > 0 && t.session == session) return true;
        if (cgroups != null && cgroups.holds(pid)) return true;
        String run = Leftovers.markerOf(pid);
        if (run != null && run.startsWith(stateDir.resolve("jobs") + "/")) return true;
        // the MPS server the daemon's control daemon started (its command name, cut to 15 characters by the kernel)
        return mps != null && "nvidia-cuda-mps".equals(Processes.command(stat));
    }

    @Override public CompletableFuture<Optional<String>> handOverOutput(long jobId, UnixAccount owner, Path target) {
        List<String> asOwner = owner != null && owner.uid() != self.uid() ? switchTo(owner) : List.of();
        return OutputHandOver.copy(logFile(stateDir, jobId), asOwner, target, "output-" + jobId);
    }

    /** Why this executor cannot enforce these limits; empty where it can (or none are asked for). */
    @Override public Optional<String> cannotEnforce(RunLimits limits) {
        if (!limits.any()) return Optional.empty();
        if (cgroups == null) return Optional.of("tandem serve runs without cgroups here (" + noCgroups + "), and limits need them");
        return cgroups.cannotEnforce(limits);
    }

    private Integer exitCode(Tracked t) {
        Path f = jobDir(stateDir, t.jobId).resolve("exit-" + t.attempt);
        try {
            if (Files.exists(f)) return Integer.parseInt(Files.readString(f).strip());
        } catch (IOException | NumberFormatException e) {
            log.warn("job {}: unreadable exit status file {}: {}", t.jobId, f, e.getMessage());
        }
        if (t.process != null) {
            try {
                return t.process.waitFor(1, TimeUnit.SECONDS) ? t.process.exitValue() : null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return null;
    }

    @Override public Set<Long> liveJobs() { return Set.copyOf(tracked.keySet()); }

    @Override public void stopAll() {
        for (long id : List.copyOf(tracked.keySet())) stop(id);
        long deadline = System.currentTimeMillis() + stopGraceMs + 5000;
        while (System.currentTimeMillis() < deadline && !tracked.isEmpty()) {
            poll();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        poll();
        if (mps != null) mps.stop();
        if (cgroups != null) cgroups.close();
    }

    @Override public void close() {
        // jobs keep running (a restarted daemon re-adopts them); only our bookkeeping ends here
        tracked.clear();
        if (cgroups != null) cgroups.close();
    }

    private static Long readPid(Path f) {
        try {
            return Files.exists(f) ? Long.valueOf(Files.readString(f).strip()) : null;
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    private static long size(Path f) {
        try {
            return Files.exists(f) ? Files.size(f) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
