package dev.tandem.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.exec.slurm.SlurmCli;
import dev.tandem.sim.engine.Metrics;
import dev.tandem.sim.sweep.Sweep;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code tandem sweep --executor slurm}: the grid as one Slurm job array, one task per workload (cluster x load x
 * seed), each running every policy on its workload, so that a sweep that outgrows one machine spreads over a
 * partition. A task is this same command line with {@code --array-task-dir}: the same java and class path (which
 * the nodes must see at the same paths, as they must see the work directory), started in the caller's directory, so
 * relative paths mean the same. Each task writes {@code task-N.json} (atomically) and logs to {@code task-N.log};
 * the caller polls until the array has left the queue, then gathers the results into the usual report, or names
 * the tasks that left no result and their logs.
 */
final class SweepOnSlurm {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long POLL_MS = 2000;
    /** The batch script: runs its arguments as they are (argv, never a shell string). */
    private static final String SCRIPT = "#!/bin/sh\n# written by tandem sweep --executor slurm: runs the array task's command, given as arguments\nexec \"$@\"\n";

    private final Path dir;
    private final String partition;
    private final SlurmCli slurm;

    SweepOnSlurm(Path dir, String partition) {
        this(dir, partition, ToolPath.fromEnvironment());
    }

    /** @param tools where Slurm's commands are looked for */
    SweepOnSlurm(Path dir, String partition, ToolPath tools) {
        this.dir = dir.toAbsolutePath();
        this.partition = partition;
        this.slurm = new SlurmCli(tools);
    }

    /**
     * Submits the array and waits for it.
     *
     * @param sweepArgs the arguments of {@code tandem sweep} as given (each task repeats them)
     */
    Map<Sweep.Cell, Metrics> run(List<String> sweepArgs, List<String> policies, List<Sweep.Workload> workloads) throws IOException, InterruptedException {
        // before anything is written: without Slurm's commands a run would leave only an empty work directory behind
        slurm.require("sbatch", "squeue");
        Files.createDirectories(dir);
        try (var stale = Files.list(dir)) {
            if (stale.anyMatch(p -> p.getFileName().toString().startsWith("task-"))) {
                throw new IllegalArgumentException("--work-dir " + dir + " holds results of an earlier sweep; give an empty or new directory");
            }
        }
        Path script = dir.resolve("task.sh");
        Files.writeString(script, SCRIPT);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> args = new ArrayList<>(List.of("--parsable", "--job-name=tandem-sweep", "--array=0-" + (workloads.size() - 1),
                "--output=" + dir.resolve("task-%a.log"), "--chdir=" + Path.of("").toAbsolutePath()));
        if (partition != null) args.add("--partition=" + partition);
        args.add(script.toString());
        args.addAll(taskCommand(sweepArgs));
        String id = slurm.run("sbatch", args).strip();
        int semicolon = id.indexOf(';'); // --parsable prints "ID" or "ID;CLUSTER"
        if (semicolon >= 0) id = id.substring(0, semicolon);
        System.out.printf(Locale.ROOT, "Slurm job array %s: %d tasks%n", id, workloads.size());
        boolean tty = System.console() != null;
        int done = 0;
        while (true) {
            done = finished(workloads.size());
            if (tty) System.err.printf(Locale.ROOT, "\r%d/%d tasks done", done, workloads.size());
            if (done == workloads.size() || !queued(id)) break;
            Thread.sleep(POLL_MS);
        }
        if (tty) System.err.print("\r" + " ".repeat(40) + "\r");
        done = finished(workloads.size()); // a task may have written its result just before the array left the queue
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < workloads.size(); i++) {
            if (!Files.exists(result(i))) missing.add("task " + i + " (" + describe(workloads.get(i)) + "): see " + dir.resolve("task-" + i + ".log"));
        }
        if (!missing.isEmpty()) {
            throw new ExecException("Slurm job array " + id + ": " + missing.size() + " of " + workloads.size() + " task(s) left no result:\n  "
                    + String.join("\n  ", missing));
        }
        Map<Sweep.Cell, Metrics> results = new LinkedHashMap<>();
        for (int i = 0; i < workloads.size(); i++) {
            Sweep.Workload w = workloads.get(i);
            Map<String, Metrics> byPolicy = JSON.readValue(result(i).toFile(), new TypeReference<LinkedHashMap<String, Metrics>>() {});
            for (String p : policies) {
                Metrics m = byPolicy.get(p);
                if (m == null) throw new ExecException(result(i) + " has no result for policy " + p);
                results.put(new Sweep.Cell(w.cluster(), w.load(), w.seed(), p), m);
            }
        }
        return results;
    }

    /** An array task: runs the workload of {@code SLURM_ARRAY_TASK_ID} and writes its result into {@code dir}. */
    static void runTask(Path dir, List<String> policies, List<Sweep.Workload> workloads, Sweep.SpecFactory specs) throws IOException {
        String task = System.getenv("SLURM_ARRAY_TASK_ID");
        if (task == null) throw new IllegalArgumentException("--array-task-dir is set by tandem sweep --executor slurm for its array tasks, which have SLURM_ARRAY_TASK_ID");
        int i;
        try {
            i = Integer.parseInt(task.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("SLURM_ARRAY_TASK_ID: not a task number: '" + task + "'");
        }
        if (i < 0 || i >= workloads.size()) throw new IllegalArgumentException("SLURM_ARRAY_TASK_ID " + i + ": the sweep has " + workloads.size() + " workloads");
        Sweep.Workload w = workloads.get(i);
        System.out.println("task " + i + ": " + describe(w) + ", policies " + String.join(",", policies));
        Map<String, Metrics> out = Sweep.runWorkload(policies, w, specs);
        Path tmp = dir.resolve("task-" + i + ".json.part");
        JSON.writeValue(tmp.toFile(), out);
        Files.move(tmp, dir.resolve("task-" + i + ".json"), StandardCopyOption.ATOMIC_MOVE);
        System.out.println("task " + i + ": done");
    }

    /** This JVM and class path running the same sweep as one array task. */
    private List<String> taskCommand(List<String> sweepArgs) {
        String java = ProcessHandle.current().info().command().orElseThrow(() -> new IllegalStateException("cannot tell which java runs tandem"));
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) classPath.add(Path.of(entry).toAbsolutePath().toString());
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", String.join(File.pathSeparator, classPath), TandemCommand.class.getName()));
        int at = sweepArgs.indexOf("sweep");
        cmd.addAll(at >= 0 ? sweepArgs.subList(at, sweepArgs.size()) : prepend("sweep", sweepArgs));
        cmd.add("--array-task-dir=" + dir);
        return cmd;
    }

    private static List<String> prepend(String first, List<String> rest) {
        List<String> out = new ArrayList<>(List.of(first));
        out.addAll(rest);
        return out;
    }

    private Path result(int task) { return dir.resolve("task-" + task + ".json"); }

    private int finished(int tasks) {
        int n = 0;
        for (int i = 0; i < tasks; i++) if (Files.exists(result(i))) n++;
        return n;
    }

    /** Whether any task of the array is still pending or running. */
    private boolean queued(String id) {
        SlurmCli.Result r = slurm.tryRun("squeue", List.of("-h", "-j", id, "-o", "%i"));
        if (r.code() != 0) {
            // squeue refuses a job id it no longer knows ("Invalid job id specified"): the array has left the queue
            if (r.err().contains("Invalid job id")) return false;
            // slurmctld restarting or overloaded: the array is still there; ask again at the next poll
            if (r.err().contains("Unable to contact slurm controller") || r.err().contains("Socket timed out")) return true;
            throw new UncheckedIOException(new IOException("squeue -j " + id + " exited with " + r.code() + ": " + r.err().strip()));
        }
        return !r.out().isBlank();
    }

    private static String describe(Sweep.Workload w) {
        return "cluster " + w.cluster() + ", load " + w.load() + ", seed " + w.seed();
    }
}
