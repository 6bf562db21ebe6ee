package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tandem submit [options] -- COMMAND [ARGS...]}: queue a job; the command after {@code --} is kept as a list, never given to a shell. */
@Command(name = "submit", mixinStandardHelpOptions = true, description = {
        "Submit a job to tandem serve, e.g.: tandem submit --gpus 1 --memory 12G -- python train.py --epochs 3",
        "Everything after -- is the command, run as given (no shell) in the current directory."})
final class SubmitCommand implements Callable<Integer> {
    @Mixin ClientOptions client;

    @Option(names = "--gpus", defaultValue = "1", description = "GPUs the job needs at once (default: ${DEFAULT-VALUE})")
    int gpus;

    @Option(names = "--memory", converter = MemorySize.class, paramLabel = "SIZE", description = "device memory per GPU, e.g. 12G or 512M (default: learned by profiling)")
    Long memoryMiB;

    @Option(names = "--name", description = "job name (default: the program's name)")
    String name;

    @Option(names = "--iterations", description = "expected total iterations, if the job prints tandem:progress lines")
    Long iterations;

    @Option(names = {"-t", "--time-limit"}, paramLabel = "DURATION", description = "stop the job and mark it failed when a run lasts longer (e.g. 90m, 2h, 1d), as Slurm's --time")
    String timeLimit;

    @Option(names = {"-e", "--env"}, paramLabel = "NAME=VALUE", description = "extra environment variable (repeatable)")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(names = "--workdir", description = "working directory on the server (default: the current directory)")
    Path workdir;

    @Option(names = "--model", description = "workload signature: model name (jobs alike share a profile; default: derived from the command)")
    String model;

    @Option(names = "--dataset", description = "workload signature: data set")
    String dataset;

    @Option(names = "--batch-size", description = "workload signature: batch size")
    Integer batchSize;

    @Option(names = "--amp", description = "workload signature: mixed precision")
    boolean amp;

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
        if (!env.isEmpty()) body.put("env", env);
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
        JsonNode job = client.client().post("/jobs", body);
        if (client.json) client.print(job);
        else System.out.println("Submitted job " + job.get("id").asLong());
        return 0;
    }
}
