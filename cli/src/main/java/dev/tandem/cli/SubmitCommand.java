package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tandem submit [options] -- COMMAND [ARGS...]}: queue a job; the command after {@code --} is kept as a list, never given to a shell. */
@Command(name = "submit", mixinStandardHelpOptions = true, description = {
        "Submit a job to tandem serve. Everything after -- is the command, run as given (no shell) in the current directory."},
        footer = {"", "Example: tandem submit --gpus 1 --memory 12G -- python train.py --epochs 3",
                "Example: tandem submit --array 0-9 --after 12 -- python train.py   (ten runs, each with its TANDEM_ARRAY_INDEX, once job 12 succeeded)"})
final class SubmitCommand implements Callable<Integer> {
    /** The option each field of the API's job request comes from: the daemon's refusals name the field. */
    private static final Map<String, String> OPTIONS = Map.ofEntries(Map.entry("name", "--name"), Map.entry("argv", "COMMAND"),
            Map.entry("env", "--env"), Map.entry("workdir", "--workdir"), Map.entry("gpus", "--gpus"), Map.entry("memory_mib", "--memory"),
            Map.entry("iterations", "--iterations"), Map.entry("time_limit", "--time-limit"), Map.entry("priority", "--priority"),
            Map.entry("after", "--after"), Map.entry("hold", "--hold"), Map.entry("array", "--array"), Map.entry("output", "--output"),
            Map.entry("signature", "--model"), Map.entry("signature.dataset", "--dataset"), Map.entry("signature.batch_size", "--batch-size"),
            Map.entry("signature.amp", "--amp"), Map.entry("limits.host_memory_mib", "--limit-host-memory"),
            Map.entry("limits.processes", "--limit-processes"));

    @Mixin ClientOptions client;

    @Option(names = "--gpus", defaultValue = "1", description = "GPUs the job needs at once (default: ${DEFAULT-VALUE})")
    int gpus;

    @Option(names = "--memory", converter = MemorySize.class, paramLabel = "SIZE", description = "device memory per GPU, e.g. 12G or 512M (default: learned by profiling)")
    Long memoryMiB;

    @Option(names = "--name", description = "job name (default: the program's name)")
    String name;

    @Option(names = "--iterations", description = "expected total iterations, if the job prints tandem:progress lines; "
            + "without it the scheduler takes the job to need as long as it has run so far, at least 10 minutes")
    Long iterations;

    @Option(names = {"-t", "--time-limit"}, paramLabel = "DURATION", description = "stop the job and mark it failed when a run lasts longer (e.g. 90m, 2h, 1d), as Slurm's --time")
    String timeLimit;

    /** As given: picocli's own NAME=VALUE map reported a value without '=' as "Value for option option '--env' ...". */
    @Option(names = {"-e", "--env"}, paramLabel = "NAME[=VALUE]", description = "extra environment variable (repeatable); NAME alone takes its value from"
            + " your environment, which keeps a secret (an API key) out of the command line that other users can see in the process list")
    List<String> env = new ArrayList<>();

    @Option(names = "--workdir", description = "working directory on the server (default: the current directory)")
    Path workdir;

    @Option(names = "--model", description = "workload signature: model name (jobs alike share a profile; default: derived from the command). "
            + "A daemon with --executor simulated takes only the bundled workloads (tandem compat matrix lists them)")
    String model;

    @Option(names = "--dataset", description = "workload signature: data set")
    String dataset;

    @Option(names = "--batch-size", description = "workload signature: batch size")
    Integer batchSize;

    @Option(names = "--amp", description = "workload signature: mixed precision")
    boolean amp;

    @Option(names = "--priority", paramLabel = "N", description = "higher runs first, from -1000 to 1000 (default: 0); users may lower their own jobs', raising takes an admin")
    Integer priority;

    @Option(names = {"-d", "--after"}, paramLabel = "ID[,ID...]", description = "start only after these jobs have succeeded; cancelled if one fails or is cancelled (as Slurm's --dependency=afterok)")
    String after;

    @Option(names = {"-H", "--hold"}, description = "submit held: it waits until tandem release ID")
    boolean hold;

    @Option(names = {"-a", "--array"}, paramLabel = "INDICES", description = "a job array: one job per index, e.g. 0-9, 1,3,5 or 0-20:5; each gets TANDEM_ARRAY_INDEX and TANDEM_ARRAY_JOB_ID")
    String array;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "also copy the job's output to FILE when each run ends, written with your rights (relative to the working directory; %%j: the job id, %%a: its array index), as Slurm's --output")
    String output;

    @Option(names = "--limit-host-memory", converter = MemorySize.class, paramLabel = "SIZE", description = "host memory each run may use, e.g. 16G (not the GPU's: see --memory); a run over it is killed and the job fails. Needs a daemon with cgroups, or a Slurm cluster that enforces --mem")
    Long hostMemoryLimitMiB;

    @Option(names = "--limit-processes", paramLabel = "N", description = "processes and threads each run may have at once; forks beyond fail. Needs a local daemon with cgroups (Slurm has no such limit)")
    Integer processLimit;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "the command and its arguments, after --")
    List<String> argv;

    @Override public Integer call() throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("argv", argv);
        if (name != null) body.put("name", name);
        body.put("gpus", gpus);
        if (memoryMiB != null) body.put("memory_mib", memoryMiB);
        if (iterations != null) body.put("iterations", iterations);
        if (timeLimit != null) body.put("time_limit", timeLimit);
        if (!env.isEmpty()) body.put("env", variables());
        if (priority != null) body.put("priority", priority);
        if (after != null) body.put("after", after);
        if (hold) body.put("hold", true);
        if (array != null) body.put("array", array);
        if (output != null) body.put("output", output);
        if (hostMemoryLimitMiB != null || processLimit != null) {
            Map<String, Object> limits = new LinkedHashMap<>();
            if (hostMemoryLimitMiB != null) limits.put("host_memory_mib", hostMemoryLimitMiB);
            if (processLimit != null) limits.put("processes", processLimit);
            body.put("limits", limits);
        }
        body.put("workdir", (workdir != null ? workdir : Path.of("")).toAbsolutePath().normalize().toString());
        if (model != null) {
            Map<String, Object> sig = new LinkedHashMap<>();
            sig.put("model", model);
            if (dataset != null) sig.put("dataset", dataset);
            if (batchSize != null) sig.put("batch_size", batchSize);
            sig.put("amp", amp);
            body.put("signature", sig);
        } else if (dataset != null || batchSize != null || amp) {
            throw new IllegalArgumentException("--dataset, --batch-size and --amp describe a workload signature and need --model");
        }
        JsonNode job;
        try {
            job = client.client().post("/jobs", body);
        } catch (ApiClient.ServerError e) {
            throw e.inTermsOf(OPTIONS);
        }
        if (client.json) client.print(job);
        else if (job.has("array_job_ids")) {
            JsonNode ids = job.get("array_job_ids");
            System.out.println("Submitted job array " + job.get("id").asLong() + ": " + ids.size() + " jobs, " + ids.get(0).asLong() + ".." + ids.get(ids.size() - 1).asLong());
        } else {
            System.out.println("Submitted job " + job.get("id").asLong() + (hold ? " (held: tandem release " + job.get("id").asLong() + ")" : ""));
        }
        return 0;
    }

    /**
     * The --env values as NAME: value (a later one of the same name wins, as in a shell); the daemon judges the names. A
     * NAME without '=' is passed with its value in this command's environment, as {@code docker run -e NAME} does.
     */
    private Map<String, String> variables() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String e : env) {
            int eq = e.indexOf('=');
            if (eq >= 0) {
                out.put(e.substring(0, eq), e.substring(eq + 1));
                continue;
            }
            String value = System.getenv(e);
            if (value == null) {
                throw new IllegalArgumentException("--env: '" + e + "' is not set in your environment; give " + e + "=VALUE, or export " + e + " first");
            }
            out.put(e, value);
        }
        return out;
    }
}
