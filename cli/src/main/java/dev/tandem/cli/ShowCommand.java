package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/** {@code tandem show ID}: one job with the scheduler's reason, its speeds and its history. */
@Command(name = "show", mixinStandardHelpOptions = true, footer = {"", "Example: tandem show 12"}, description = "Show a job: why it waits or with whom it shares, speeds, history.")
final class ShowCommand implements Callable<Integer> {
    @Mixin ClientOptions client;

    @Parameters(paramLabel = "ID", description = "job id")
    long id;

    @Override public Integer call() throws Exception {
        JsonNode j = client.client().get("/jobs/" + id);
        if (client.json) {
            client.print(j);
            return 0;
        }
        StringBuilder argv = new StringBuilder();
        for (JsonNode a : j.get("argv")) argv.append(argv.isEmpty() ? "" : " ").append(quote(a.asText()));
        line("Job", j.get("id").asText() + " (" + j.get("name").asText() + ") of " + j.get("owner").asText());
        line("State", j.get("state").asText() + (j.get("exclusive").asBoolean() ? " (runs alone after out of memory)" : ""));
        line("Reason", j.path("reason").asText(""));
        line("Command", argv.toString());
        line("Workdir", j.get("workdir").asText());
        line("Workload", j.get("signature").get("label").asText());
        line("GPUs", j.get("gpus").asText() + (j.get("gpu_ids").isEmpty() ? "" : " on " + j.get("gpu_ids").toString()));
        if (j.get("memory_mib").asLong() > 0) line("Memory", j.get("memory_mib").asText() + " MiB per GPU");
        if (j.hasNonNull("time_limit_s")) line("Time limit", String.format(java.util.Locale.ROOT, "%.0f s per run", j.get("time_limit_s").asDouble()));
        if (j.get("priority").asInt() != 0) line("Priority", j.get("priority").asText());
        if (!j.get("after").isEmpty()) line("After", "jobs " + j.get("after").toString() + " succeed");
        if (j.get("held").asBoolean()) line("Held", "yes (tandem release " + j.get("id").asText() + ")");
        if (!j.get("array_job").isNull()) line("Array", "index " + j.get("array_index").asText() + " of job array " + j.get("array_job").asText());
        if (!j.get("partners").isEmpty()) line("Shares with", j.get("partners").toString());
        if (!j.get("shared_with").isEmpty()) line("Shared with", j.get("shared_with").toString() + " (any run)");
        if (!j.get("predicted_speed").isNull()) line("Predicted", j.get("predicted_speed").asText() + "x of solo" + (j.get("prediction_basis").isNull() ? "" : " (" + j.get("prediction_basis").asText() + ")"));
        if (!j.get("observed_speed").isNull()) line("Observed", j.get("observed_speed").asText() + "x of solo");
        String progress = progress(j);
        if (progress != null) line("Progress", progress);
        line("Attempts", j.get("attempts").asText());
        if (!j.get("exit_code").isNull()) line("Exit code", j.get("exit_code").asText());
        System.out.println("History:");
        for (JsonNode e : j.get("events")) {
            System.out.printf("  %s  %-9s -> %-9s  by %s: %s%n", e.get("at").asText(), e.get("from").isNull() ? "" : e.get("from").asText(),
                    e.get("to").asText(), e.get("actor").asText(), e.path("reason").asText(""));
        }
        return 0;
    }

    /**
     * How far the job is against the length it declared, and how the scheduler takes its length: a job that declared
     * none, or has run past what it declared, is scheduled as needing as long as it has run (at least 10 minutes), and
     * its owner should be able to see why it is ranked so. Null before any progress and without a declared length.
     */
    static String progress(JsonNode job) {
        JsonNode iter = job.get("progress_iter"), declared = job.get("iterations");
        boolean hasDeclared = declared != null && !declared.isNull();
        if (iter == null || iter.isNull()) return hasDeclared ? "none yet (" + declared.asText() + " iterations declared)" : null;
        String at = "iteration " + iter.asText();
        if (!hasDeclared) return at + " (no length declared: scheduled as needing as long as it has run)";
        if (iter.asLong() <= declared.asLong()) return at + " of " + declared.asText();
        return at + ", past the " + declared.asText() + " declared: scheduled as needing as long as it has run";
    }

    private static void line(String key, String value) {
        System.out.printf("%-12s %s%n", key + ":", value);
    }

    static String quote(String a) {
        return a.isEmpty() || !a.matches("[A-Za-z0-9_./=:,+@%-]+") ? "'" + a.replace("'", "'\\''") + "'" : a;
    }
}
