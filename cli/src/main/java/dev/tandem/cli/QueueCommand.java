package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

/** {@code tandem queue}: the jobs that wait or run (like squeue); {@code --all} adds finished ones. */
@Command(name = "queue", aliases = "jobs", mixinStandardHelpOptions = true, footer = {"", "Example: tandem queue --all --user alice"}, description = "List jobs that wait or run (yours; an admin sees everybody's).")
final class QueueCommand implements Callable<Integer> {
    static final String ACTIVE = "pending,profiling,running,paired,suspended";

    @Mixin ClientOptions client;

    @Option(names = "--all", description = "include finished jobs")
    boolean all;

    @Option(names = "--state", description = "only these states, comma-separated")
    String state;

    @Option(names = "--user", description = "admin only: one user's jobs")
    String user;

    @Override public Integer call() throws Exception {
        StringBuilder q = new StringBuilder("/jobs?limit=10000");
        String states = state != null ? state : all ? null : ACTIVE;
        if (states != null) q.append("&state=").append(URLEncoder.encode(states, StandardCharsets.UTF_8));
        if (user != null) q.append("&user=").append(URLEncoder.encode(user, StandardCharsets.UTF_8));
        JsonNode res = client.client().get(q.toString());
        if (client.json) {
            client.print(res);
            return 0;
        }
        Table t = new Table("JOBID", "NAME", "USER", "STATE", "GPUS", "ON", "TIME", "REASON");
        for (JsonNode j : res.get("jobs")) {
            StringBuilder on = new StringBuilder();
            for (JsonNode g : j.get("gpu_ids")) on.append(on.isEmpty() ? "" : ",").append(g.asInt());
            boolean placed = !j.get("partners").isEmpty() || j.get("state").asText().matches("profiling|running|paired");
            t.add(j.get("id").asText(), Table.cut(j.get("name").asText(), 20), j.get("owner").asText(), j.get("state").asText(),
                    j.get("gpus").asText(), placed ? on.toString() : "-", age(j), Table.cut(j.path("reason").asText(""), 70));
        }
        System.out.print(t.render());
        return 0;
    }

    /** Run time of a placed job, waiting time of a queued one, as h:mm:ss. */
    static String age(JsonNode j) {
        String from = !j.get("started_at").isNull() && j.get("state").asText().matches("profiling|running|paired")
                ? j.get("started_at").asText() : j.get("submitted_at").asText();
        Instant end = j.get("finished_at").isNull() ? Instant.now() : Instant.parse(j.get("finished_at").asText());
        return dev.tandem.core.model.DurationText.hms(Math.max(0, Duration.between(Instant.parse(from), end).toSeconds()));
    }
}
