package dev.tandem.server.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import dev.tandem.server.store.RunLimits;

/**
 * A cgroup v2 per run of the local executor. Every process a run starts is in its cgroup whatever it does
 * ({@code setsid}, a double fork, a cleared environment), so what a run leaves behind is exactly the cgroup's
 * members once its main process has ended, and {@code cgroup.kill} ends them all at once. The wrapper every run
 * goes through moves itself into the run's cgroup before it starts the job (the daemon makes the cgroup and
 * writes its path into the job's directory, so a restarted daemon finds it again).
 *
 * <p>Runs' cgroups live under one cgroup of this daemon's, named after its state directory
 * ({@code tandem-HASH}, beside the daemon's own cgroup), so two daemons never mix their runs.
 * Host memory and process limits ({@link RunLimits}) are set with the cgroup v2 {@code memory} and {@code pids}
 * controllers where they can be enabled there; on a hybrid hierarchy, whose v2 part only groups processes while the
 * controllers stay on cgroup v1 (as on this CI machine), a run that asks for a limit also gets a v1 cgroup of that
 * controller ({@code tandem-HASH/job-ID-ATTEMPT} under the daemon's own v1 cgroup), which the wrapper enters too.
 */
public final class RunCgroups {
    /** Where the cgroup v2 hierarchy is mounted. */
    private final Path mount;
    /** The cgroup of this daemon's runs. */
    private final Path parent;
    /** Controllers enabled for the runs' v2 cgroups: of "memory" and "pids". */
    private final Set<String> v2Limits;
    /** For a controller v2 lacks here, this daemon's parent cgroup in its v1 hierarchy. */
    private final Map<String, Path> v1Parents;

    private RunCgroups(Path mount, Path parent, Set<String> v2Limits, Map<String, Path> v1Parents) {
        this.mount = mount;
        this.parent = parent;
        this.v2Limits = v2Limits;
        this.v1Parents = v1Parents;
    }

    /**
     * A run's cgroups: {@code main}, the v2 one that holds all its processes, and where limits need cgroup v1, one per
     * such controller. The wrapper enters each (their paths are listed in the job's directory, main first).
     */
    public record RunCgroup(Path main, Map<String, Path> v1) {}

    /** Cgroups cannot be used here; the message says why. */
    public static final class Unavailable extends Exception {
        Unavailable(String why) { super(why); }
    }

    /**
     * Finds the cgroup v2 hierarchy, makes this daemon's runs' cgroup in it and proves that a process can be moved
     * into a cgroup there and killed with it (a short {@code sleep}); else says why not.
     */
    public static RunCgroups open(Path stateDir) throws Unavailable {
        List<String> mountinfo = read(Path.of("/proc/self/mountinfo")), procCgroup = read(Path.of("/proc/self/cgroup"));
        Path mount = cgroup2Mount(mountinfo).orElseThrow(() -> new Unavailable("no cgroup v2 hierarchy is mounted"));
        String own = ownCgroup(procCgroup).orElseThrow(() -> new Unavailable("/proc/self/cgroup names no cgroup v2 of this process"));
        // beside the daemon's own cgroup, not inside it: a cgroup holding processes cannot pass controllers to children
        Path ownDir = mount.resolve(own.substring(1));
        Path parent = (own.equals("/") ? ownDir : ownDir.getParent()).resolve(parentName(stateDir));
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw new Unavailable("cannot make " + parent + " (" + e.getMessage() + "); cgroups need root or a delegated cgroup");
        }
        Set<String> v2 = enableLimits(parent);
        Map<String, Path> v1 = new LinkedHashMap<>();
        for (String controller : List.of("memory", "pids")) {
            if (v2.contains(controller)) continue;
            Optional<Path> m = cgroup1Mount(mountinfo, controller);
            Optional<String> ownV1 = ownCgroup1(procCgroup, controller);
            if (m.isEmpty() || ownV1.isEmpty()) continue;
            // inside the daemon's own v1 cgroup: cgroup v1 lets a cgroup with processes have children, and the
            // daemon's (a container's) limits then bound its runs' too
            Path p = m.get().resolve(ownV1.get().substring(1)).resolve(parentName(stateDir));
            try {
                Files.createDirectories(p);
                if (Files.isWritable(p.resolve("cgroup.procs"))) v1.put(controller, p);
            } catch (IOException e) {
                // no limit of this kind here
            }
        }
        RunCgroups cgroups = new RunCgroups(mount, parent, v2, v1);
        cgroups.probe();
        return cgroups;
    }

    /** "tandem-" and the first 8 hex digits of the SHA-256 of the state directory's absolute path. */
    static String parentName(Path stateDir) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(stateDir.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8));
            return "tandem-" + HexFormat.of().formatHex(hash, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java", e);
        }
    }

    /** A line of /proc/self/mountinfo: the mount point, the file system type and its super options. */
    private record Mount(Path point, String type, List<String> superOptions) {}

    /** The lines of a mountinfo text that are mounts ("... MOUNT_POINT ... - TYPE SOURCE SUPER_OPTIONS"). */
    private static List<Mount> mounts(List<String> mountinfo) {
        List<Mount> out = new ArrayList<>();
        for (String line : mountinfo) {
            int dash = line.indexOf(" - ");
            if (dash < 0) continue;
            String[] before = line.substring(0, dash).split(" ");
            String[] after = line.substring(dash + 3).split(" ");
            if (before.length > 4 && after.length > 0) {
                out.add(new Mount(Path.of(unescape(before[4])), after[0], after.length > 2 ? List.of(after[2].split(",")) : List.of()));
            }
        }
        return out;
    }

    /** The mount point of the first cgroup2 file system in a mountinfo text. */
    static Optional<Path> cgroup2Mount(List<String> mountinfo) {
        return mounts(mountinfo).stream().filter(m -> m.type().equals("cgroup2")).map(Mount::point).findFirst();
    }

    /** mountinfo writes space, tab, newline and backslash in paths as three octal digits after a backslash. */
    private static String unescape(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                out.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The mount point of the cgroup v1 hierarchy that has {@code controller} (its super options name it). */
    static Optional<Path> cgroup1Mount(List<String> mountinfo, String controller) {
        return mounts(mountinfo).stream().filter(m -> m.type().equals("cgroup") && m.superOptions().contains(controller))
                .map(Mount::point).findFirst();
    }

    /** This process's path in the cgroup v1 hierarchy of {@code controller} ("4:memory:/..." in /proc/self/cgroup). */
    static Optional<String> ownCgroup1(List<String> procCgroup, String controller) {
        for (String l : procCgroup) {
            String[] f = l.split(":", 3);
            if (f.length == 3 && !f[1].isEmpty() && List.of(f[1].split(",")).contains(controller) && f[2].startsWith("/")) return Optional.of(f[2]);
        }
        return Optional.empty();
    }

    /** This process's cgroup v2 path ("0::/..." in /proc/self/cgroup). */
    static Optional<String> ownCgroup(List<String> procCgroup) {
        return procCgroup.stream().filter(l -> l.startsWith("0::/")).map(l -> l.substring(3)).findFirst();
    }

    /** Enables the memory and pids controllers for the runs' cgroups where the hierarchy offers them. */
    private static Set<String> enableLimits(Path parent) {
        Set<String> enabled = new LinkedHashSet<>();
        List<String> offered;
        try {
            offered = List.of(Files.readString(parent.resolve("cgroup.controllers")).strip().split("\\s+"));
        } catch (IOException e) {
            return enabled;
        }
        for (String c : List.of("memory", "pids")) {
            if (!offered.contains(c)) continue;
            try {
                Files.writeString(parent.resolve("cgroup.subtree_control"), "+" + c);
                enabled.add(c);
            } catch (IOException e) {
                // offered but not delegable here (e.g. the parent holds processes): runs go without that limit
            }
        }
        return enabled;
    }

    /** Moves a short-lived process into a fresh cgroup and kills it through the cgroup, as every run will be. */
    private void probe() throws Unavailable {
        Path probe = parent.resolve("probe-" + ProcessHandle.current().pid());
        Process sleeper = null;
        try {
            Files.createDirectories(probe);
            sleeper = new ProcessBuilder("sleep", "30").start();
            Files.writeString(probe.resolve("cgroup.procs"), String.valueOf(sleeper.pid()));
            if (!members(probe).contains(sleeper.pid())) throw new Unavailable("a process moved into " + probe + " is not listed in it");
            kill(probe);
            if (!sleeper.waitFor(5, TimeUnit.SECONDS)) throw new Unavailable("killing " + probe + " did not end the process in it");
        } catch (IOException e) {
            throw new Unavailable("cannot move a process into a cgroup under " + parent + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted while trying cgroups");
        } finally {
            if (sleeper != null) sleeper.destroyForcibly();
            awaitEmpty(probe, 2000);
            remove(probe);
        }
    }

    public Path parent() { return parent; }

    /** Whether a process is in one of this daemon's runs' cgroups. */
    public boolean holds(long pid) {
        try {
            Optional<String> own = ownCgroup(Files.readAllLines(Path.of("/proc", String.valueOf(pid), "cgroup")));
            return own.isPresent() && mount.resolve(own.get().substring(1)).startsWith(parent);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The limits runs can be given, as the start-up log says them: "host memory (cgroup v2), processes (cgroup v1)". */
    public String limits() {
        List<String> out = new ArrayList<>();
        for (String c : List.of("memory", "pids")) {
            String what = c.equals("memory") ? "host memory" : "processes";
            if (v2Limits.contains(c)) out.add(what + " (cgroup v2)");
            else if (v1Parents.containsKey(c)) out.add(what + " (cgroup v1 " + c + ")");
        }
        return out.isEmpty() ? "none: no memory or pids controller can be used here" : String.join(", ", out);
    }

    /** Why these limits cannot be enforced here; empty where they can. */
    public Optional<String> cannotEnforce(RunLimits l) {
        if (l.hostMemoryMiB() != null && !v2Limits.contains("memory") && !v1Parents.containsKey("memory")) {
            return Optional.of("this daemon can set no host memory limit: neither cgroup v2 nor v1 offers it the memory controller");
        }
        if (l.processes() != null && !v2Limits.contains("pids") && !v1Parents.containsKey("pids")) {
            return Optional.of("this daemon can set no process limit: neither cgroup v2 nor v1 offers it the pids controller");
        }
        return Optional.empty();
    }

    /**
     * New, empty cgroups for this attempt of the job, with its limits. One left from an earlier daemon's run of the
     * same attempt (it can only be a leftover) is emptied first.
     */
    public RunCgroup create(long jobId, int attempt, RunLimits limits) {
        String name = "job-" + jobId + "-" + attempt;
        Path cg = parent.resolve(name);
        cannotEnforce(limits).ifPresent(why -> { throw new JobCannotRun("job " + jobId + ": " + why); });
        try {
            fresh(cg);
            Map<String, Path> v1 = new LinkedHashMap<>();
            if (limits.hostMemoryMiB() != null) {
                String bytes = String.valueOf(limits.hostMemoryMiB() << 20);
                // swap counts too, else a run over its limit swaps instead of being stopped
                if (v2Limits.contains("memory")) {
                    Files.writeString(cg.resolve("memory.max"), bytes);
                    writeIfPresent(cg.resolve("memory.swap.max"), "0");
                } else {
                    Path dir = limitDir(v1Parents.get("memory").resolve(name), "memory.limit_in_bytes", bytes);
                    writeIfPresent(dir.resolve("memory.memsw.limit_in_bytes"), bytes);
                    v1.put("memory", dir);
                }
            }
            if (limits.processes() != null) {
                String max = String.valueOf(limits.processes());
                if (v2Limits.contains("pids")) Files.writeString(cg.resolve("pids.max"), max);
                else v1.put("pids", limitDir(v1Parents.get("pids").resolve(name), "pids.max", max));
            }
            return new RunCgroup(cg, v1);
        } catch (IOException e) {
            throw new ExecException("cannot make the cgroup " + cg + " of job " + jobId + ": " + e.getMessage(), e);
        }
    }

    /** Writes a cgroup file that this kernel may not have (swap accounting is optional). */
    private static void writeIfPresent(Path file, String value) {
        if (!Files.exists(file)) return;
        try {
            Files.writeString(file, value);
        } catch (IOException e) {
            // not settable here: the limit holds for memory without swap
        }
    }

    private static Path limitDir(Path dir, String file, String value) throws IOException {
        fresh(dir);
        Files.writeString(dir.resolve(file), value);
        return dir;
    }

    /** Makes an empty cgroup at {@code cg}, killing and removing what a run left there. */
    private static void fresh(Path cg) throws IOException {
        if (Files.isDirectory(cg)) {
            kill(cg);
            awaitEmpty(cg, 2000);
            Files.delete(cg);
        }
        Files.createDirectory(cg);
    }

    /**
     * What a run's limits did to it, for its history: processes the kernel killed for going over the host memory limit,
     * and forks refused at the process limit; null if neither happened.
     */
    public static String limitsHit(RunCgroup cg, RunLimits limits) {
        List<String> out = new ArrayList<>();
        if (limits.hostMemoryMiB() != null) {
            long kills = memoryKills(cg);
            if (kills > 0) out.add("the kernel killed " + kills + " of its process(es) for going over its host memory limit of " + limits.hostMemoryMiB() + " MiB");
        }
        if (limits.processes() != null) {
            Path dir = cg.v1().getOrDefault("pids", cg.main());
            long refused = counter(dir.resolve("pids.events"), "max");
            if (refused > 0) out.add(refused + " fork(s) refused at its limit of " + limits.processes() + " processes");
        }
        return out.isEmpty() ? null : String.join("; ", out);
    }

    /** How many of the run's processes the kernel killed for going over its memory limit. */
    public static long memoryKills(RunCgroup cg) {
        Path v1 = cg.v1().get("memory");
        return v1 != null ? counter(v1.resolve("memory.oom_control"), "oom_kill") : counter(cg.main().resolve("memory.events"), "oom_kill");
    }

    /** The value of a "name value" line of a cgroup counter file (0 where there is none). */
    private static long counter(Path file, String name) {
        try {
            for (String l : Files.readAllLines(file)) {
                String[] f = l.strip().split("\\s+");
                if (f.length == 2 && f[0].equals(name)) return Long.parseLong(f[1]);
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /** Removes a run's cgroups once empty; false where one still has processes. */
    public static boolean remove(RunCgroup cg) {
        boolean all = remove(cg.main());
        for (Path p : cg.v1().values()) all &= remove(p);
        return all;
    }

    /** The pids of a cgroup's processes (none where the cgroup is gone). */
    public static List<Long> members(Path cg) {
        List<Long> pids = new ArrayList<>();
        try {
            for (String l : Files.readAllLines(cg.resolve("cgroup.procs"))) if (!l.isBlank()) pids.add(Long.parseLong(l.strip()));
        } catch (IOException | NumberFormatException e) {
            // gone (the run ended and its cgroup was removed) or unreadable: no members to stop
        }
        return pids;
    }

    /** SIGKILL to every process in the cgroup: cgroup.kill (Linux 5.14+), else each member in turn. */
    public static void kill(Path cg) {
        Path kill = cg.resolve("cgroup.kill");
        if (Files.exists(kill)) {
            try {
                Files.writeString(kill, "1");
                return;
            } catch (IOException e) {
                // fall back to killing the members one by one
            }
        }
        for (long pid : members(cg)) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    /** Removes an empty cgroup; false where it still has processes or cannot be removed. */
    public static boolean remove(Path cg) {
        try {
            Files.deleteIfExists(cg);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits up to the given time for a cgroup to hold no process. */
    private static void awaitEmpty(Path cg, long ms) {
        long deadline = System.currentTimeMillis() + ms;
        while (!members(cg).isEmpty() && System.currentTimeMillis() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Lists a run's cgroups for its wrapper to enter, one "KIND PATH" line each (main first, then the v1 ones by
     * controller), with its limits in a file beside it ("limits-ATTEMPT": host memory and processes, "-" for none), so
     * that a restarted daemon finds both.
     */
    public static void record(Path file, RunCgroup cg, RunLimits limits) throws IOException {
        StringBuilder b = new StringBuilder("main ").append(cg.main()).append('\n');
        cg.v1().forEach((controller, path) -> b.append(controller).append(' ').append(path).append('\n'));
        Files.writeString(file, b);
        Files.writeString(limitsFile(file), (limits.hostMemoryMiB() == null ? "-" : limits.hostMemoryMiB()) + " "
                + (limits.processes() == null ? "-" : limits.processes()) + "\n");
    }

    /** The cgroups {@link #record} listed in {@code file}; null where there is no such list. */
    public static RunCgroup recorded(Path file) {
        try {
            if (!Files.exists(file)) return null;
            Path main = null;
            Map<String, Path> v1 = new LinkedHashMap<>();
            for (String line : Files.readAllLines(file)) {
                String[] kv = line.split(" ", 2);
                if (kv.length != 2) continue;
                if (kv[0].equals("main")) main = Path.of(kv[1]);
                else v1.put(kv[0], Path.of(kv[1]));
            }
            return main == null ? null : new RunCgroup(main, v1);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The limits {@link #record} wrote beside {@code file}; none where it wrote none. */
    public static RunLimits recordedLimits(Path file) {
        try {
            String[] f = Files.readString(limitsFile(file)).strip().split(" ");
            return new RunLimits(f[0].equals("-") ? null : Long.valueOf(f[0]), f[1].equals("-") ? null : Integer.valueOf(f[1]));
        } catch (IOException | RuntimeException e) {
            return RunLimits.NONE;
        }
    }

    /** "cgroup-3" beside "limits-3". */
    private static Path limitsFile(Path cgroupFile) {
        return cgroupFile.resolveSibling(cgroupFile.getFileName().toString().replaceFirst("^cgroup-", "limits-"));
    }

    /** Removes this daemon's runs' cgroups if no run's cgroup is left in them (running jobs keep theirs). */
    public void close() {
        remove(parent);
        v1Parents.values().forEach(RunCgroups::remove);
    }

    private static List<String> read(Path f) throws Unavailable {
        try {
            return Files.readAllLines(f);
        } catch (IOException e) {
            throw new Unavailable("cannot read " + f + ": " + e.getMessage());
        }
    }
}
