package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code tandem logs ID [-f]}: a job's output (stdout and stderr of all its runs); {@code -f} follows until it ends. */
@Command(name = "logs", mixinStandardHelpOptions = true, footer = {"", "Example: tandem logs -f 12"}, description = "Print a job's output; -f follows it until the job has finished.")
final class LogsCommand implements Callable<Integer> {
    @Mixin ClientOptions client;

    @Parameters(paramLabel = "ID", description = "job id")
    long id;

    @Option(names = {"-f", "--follow"}, description = "keep printing new output until the job has finished")
    boolean follow;

    @Option(names = "--poll", defaultValue = "500", paramLabel = "MS", description = "how often -f asks for more, at least 100 ms (default: ${DEFAULT-VALUE} ms)")
    long pollMs;

    @Spec CommandSpec command;

    @Override public Integer call() throws Exception {
        // each poll is a request to the daemon: 0 asked it in a busy loop, and a negative value failed in Thread.sleep
        if (pollMs < 100) throw new IllegalArgumentException("--poll: at least 100 ms (each poll is a request to the daemon), got " + pollMs);
        ApiClient api = client.client();
        long offset = 0;
        boolean asked = false; // whether it has started: once, not at every poll while it waits
        while (true) {
            JsonNode chunk = api.get("/jobs/" + id + "/logs?offset=" + offset);
            if (!asked && chunk.get("size").asLong() == 0 && !chunk.get("complete").asBoolean()) {
                asked = true;
                notStartedYet(api);
            }
            if (client.json) client.print(chunk);
            else System.out.print(chunk.get("data").asText());
            System.out.flush();
            long next = chunk.get("next_offset").asLong();
            boolean more = next < chunk.get("size").asLong();
            offset = next;
            if (more) continue;
            if (!follow || chunk.get("complete").asBoolean()) return 0;
            Thread.sleep(pollMs);
        }
    }

    /** No output yet: a job that waits has none, which an empty answer alone does not tell (it printed nothing). */
    private void notStartedYet(ApiClient api) throws Exception {
        JsonNode job = api.get("/jobs/" + id);
        if (!"pending".equals(job.path("state").asText())) return;
        command.commandLine().getErr().println("tandem: job " + id + " has not started yet (" + job.path("reason").asText("waiting") + ")"
                + (follow ? "; following its output once it starts" : ""));
    }
}
