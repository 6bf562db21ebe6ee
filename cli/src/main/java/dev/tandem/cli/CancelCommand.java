package dev.tandem.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code tandem cancel ID...}: cancel jobs (running ones are stopped). */
@Command(name = "cancel", mixinStandardHelpOptions = true, footer = {"", "Example: tandem cancel 12 13"}, description = "Cancel jobs; running ones get SIGTERM, then SIGKILL after the grace period.")
final class CancelCommand implements Callable<Integer> {
    @Mixin ClientOptions client;

    @Parameters(arity = "1..*", paramLabel = "ID", description = "job ids")
    List<Long> ids;

    @Override public Integer call() throws Exception {
        ApiClient api = client.client();
        for (long id : ids) {
            var job = api.post("/jobs/" + id + "/cancel", java.util.Map.of());
            if (client.json) client.print(job);
            else System.out.println("Cancelled job " + id);
        }
        return 0;
    }
}
