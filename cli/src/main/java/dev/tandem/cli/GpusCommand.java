package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/** {@code tandem gpus}: the machine's GPUs, their latest readings and the jobs on them. */
@Command(name = "gpus", mixinStandardHelpOptions = true, footer = {"", "Example: tandem gpus --json"}, description = "List the GPUs tandem serve schedules, with the jobs on each.")
final class GpusCommand implements Callable<Integer> {
    @Mixin ClientOptions client;

    @Override public Integer call() throws Exception {
        JsonNode res = client.client().get("/gpus");
        if (client.json) {
            client.print(res);
            return 0;
        }
        Table t = new Table("GPU", "NODE", "NAME", "MEMORY", "USED", "UTIL", "JOBS");
        for (JsonNode g : res.get("gpus")) {
            StringBuilder jobs = new StringBuilder();
            for (JsonNode j : g.get("jobs")) jobs.append(jobs.isEmpty() ? "" : ",").append(j.asLong());
            int hidden = g.get("tenants").asInt() - g.get("jobs").size();
            if (hidden > 0) jobs.append(jobs.isEmpty() ? "" : ",").append(hidden).append(" other");

            t.add(g.get("index").asText(), g.path("node").asText("-"), g.get("name").asText(), g.get("memory_total_mib").asText() + " MiB",
                    g.get("memory_used_mib").isNull() ? "-" : g.get("memory_used_mib").asLong() + " MiB",
                    g.get("utilization_gpu").isNull() ? "-" : g.get("utilization_gpu").asLong() + "%", jobs.isEmpty() ? "-" : jobs.toString());
        }
        System.out.print(t.render());
        // GPUs that get no job now: another daemon holds them, or processes that are not tandem's use them
        for (JsonNode g : res.get("gpus")) {
            if (g.hasNonNull("unavailable")) System.out.println("not scheduled: " + g.get("unavailable").asText());
        }
        // GPUs the policy keeps free for a waiting multi-GPU job (only work done before they are free may use them)
        for (JsonNode g : res.get("gpus")) {
            if (!g.path("held").asBoolean()) continue;
            String forWhom = g.hasNonNull("held_for") ? "job " + g.get("held_for").asLong() : "another user's job";
            String until = g.hasNonNull("held_until") ? ", expected free at " + g.get("held_until").asText() : "";
            System.out.println("GPU " + g.get("index").asText() + " held for " + forWhom + until);
        }
        System.out.println("sharing: " + res.get("sharing").asText());
        return 0;
    }
}
