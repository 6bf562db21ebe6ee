package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.data.Csv;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code tandem history}: finished jobs for accounting (as Slurm's sacct), as a table, JSON or CSV. */
@Command(name = "history", mixinStandardHelpOptions = true, description = {
        "Finished jobs (yours; an admin sees everybody's): wait, run time, GPU-hours, the jobs each shared GPUs with and its speed next to them.",
        "Example: tandem history --since 7d --csv > last-week.csv"})
final class HistoryCommand implements Callable<Integer> {
    private static final List<String> COLUMNS = List.of("id", "name", "owner", "state", "workload", "gpus", "submitted_at", "first_started_at",
            "finished_at", "wait_s", "run_s", "gpu_hours", "attempts", "shared_with", "speed_vs_solo", "slowdown", "exit_code", "priority",
            "array_job", "array_index", "reason");

    @Mixin ClientOptions client;

    @Option(names = "--since", paramLabel = "TIME", description = "finished at or after: a date (2026-12-01, UTC), a time (2026-12-01T08:00:00Z) or a duration ago (7d)")
    String since;

    @Option(names = "--until", paramLabel = "TIME", description = "finished before, in the same forms")
    String until;

    @Option(names = "--user", description = "admin only: one user's jobs")
    String user;

    @Option(names = "--limit", defaultValue = "1000", description = "at most this many jobs, oldest finish first (default: ${DEFAULT-VALUE})")
    int limit;

    @Option(names = "--csv", description = "CSV with a header, one row per job")
    boolean csv;

    @Override public Integer call() throws Exception {
        StringBuilder q = new StringBuilder("/history?limit=").append(limit);
        if (since != null) q.append("&since=").append(URLEncoder.encode(since, StandardCharsets.UTF_8));
        if (until != null) q.append("&until=").append(URLEncoder.encode(until, StandardCharsets.UTF_8));
        if (user != null) q.append("&user=").append(URLEncoder.encode(user, StandardCharsets.UTF_8));
        JsonNode res = client.client().get(q.toString());
        if (client.json) {
            client.print(res);
        } else if (csv) {
            writeCsv(res.get("jobs"), System.out);
        } else {
            Table t = new Table("JOBID", "NAME", "USER", "STATE", "GPUS", "WAIT", "RUN", "GPU-H", "SHARED WITH", "SPEED");
            for (JsonNode j : res.get("jobs")) {
                t.add(j.get("id").asText(), Table.cut(j.get("name").asText(), 20), j.get("owner").asText(), j.get("state").asText(),
                        j.get("gpus").asText(), hms(j.get("wait_s")), hms(j.get("run_s")), String.format(Locale.ROOT, "%.2f", j.get("gpu_hours").asDouble()),
                        list(j.get("shared_with")).isEmpty() ? "-" : list(j.get("shared_with")),
                        j.get("speed_vs_solo").isNull() ? "-" : String.format(Locale.ROOT, "%.2fx", j.get("speed_vs_solo").asDouble()));
            }
            System.out.print(t.render());
        }
        return 0;
    }

    static void writeCsv(JsonNode jobs, PrintStream out) throws java.io.IOException {
        CSVPrinter p = new CSVPrinter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), Csv.WRITE_FORMAT);
        p.printRecord(COLUMNS);
        for (JsonNode j : jobs) {
            List<String> row = new ArrayList<>();
            for (String c : COLUMNS) {
                JsonNode v = j.get(c);
                row.add(v == null || v.isNull() ? "" : v.isArray() ? list(v).replace(',', ' ') : v.asText());
            }
            p.printRecord(row);
        }
        p.flush();
    }

    private static String list(JsonNode a) {
        List<String> out = new ArrayList<>();
        a.forEach(v -> out.add(v.asText()));
        return String.join(",", out);
    }

    private static String hms(JsonNode seconds) {
        if (seconds == null || seconds.isNull()) return "-";
        return dev.tandem.core.model.DurationText.hms(Math.round(seconds.asDouble()));
    }
}
