package dev.tandem.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tandem hold ID...} and {@code tandem release ID...}: keep waiting jobs from starting, and let them go again. */
final class HoldCommand {
    private HoldCommand() {}

    private static int post(ClientOptions client, List<Long> ids, String action, String done) throws Exception {
        ApiClient api = client.client();
        for (long id : ids) {
            var job = api.post("/jobs/" + id + "/" + action, Map.of());
            if (client.json) client.print(job);
            else System.out.println(done + " job " + id);
        }
        return 0;
    }

    @Command(name = "hold", mixinStandardHelpOptions = true, description = {"Keep waiting jobs from starting (they keep their place), as Slurm's scontrol hold.",
            "Example: tandem hold 12 13; later tandem release 12 13"})
    static final class Hold implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(arity = "1..*", paramLabel = "ID", description = "job ids") List<Long> ids;

        @Override public Integer call() throws Exception { return post(client, ids, "hold", "Held"); }
    }

    @Command(name = "release", mixinStandardHelpOptions = true, description = {"Let held jobs run again.", "Example: tandem release 12"})
    static final class Release implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(arity = "1..*", paramLabel = "ID", description = "job ids") List<Long> ids;

        @Override public Integer call() throws Exception { return post(client, ids, "release", "Released"); }
    }
}
