package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/** {@code tandem logs ID [-f]}: a job's output (stdout and stderr of all its runs); {@code -f} follows until it ends. */
@Command(name = "logs", mixinStandardHelpOptions = true, footer = {"", "Example: tandem logs -f 12"}, description = "Print a job's output; -f follows it until the job has finished.")
final class LogsCommand implements Callable<Integer> {
    @Mixin ClientOptions client;

    @Parameters(paramLabel = "ID", description = "job id")
    long id;

    @Option(names = {"-f", "--follow"}, description = "keep printing new output until the job has finished")
    boolean follow;

    @Option(names = "--poll", defaultValue = "500", paramLabel = "MS", description = "how often -f asks for more (default: ${DEFAULT-VALUE} ms)")
    long pollMs;

    @Override public Integer call() throws Exception {
        ApiClient api = client.client();
        long offset = 0;
        while (true) {
            JsonNode chunk = api.get("/jobs/" + id + "/logs?offset=" + offset);
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
}
