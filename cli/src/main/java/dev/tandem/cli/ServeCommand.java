package dev.tandem.cli;

import dev.tandem.server.ServeOptions;
import dev.tandem.server.ServerMain;
import dev.tandem.server.ServeSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code tandem serve}: the scheduler daemon of this GPU machine (runs until SIGTERM or Ctrl-C). */
@Command(name = "serve", mixinStandardHelpOptions = true, defaultValueProvider = ServeSettings.class, description = {
        "Run the live scheduler on this machine's GPUs: an HTTP API on 127.0.0.1, jobs as child processes.",
        "On first start it creates the admin user and writes its token to STATE_DIR/admin.token (mode 0600).",
        "Jobs keep running when the daemon stops (Ctrl-C, SIGTERM) and are re-adopted by the next one.",
        "Every option can also be set in a config file (--config tandem.yaml) or as an environment variable (TANDEM_PORT=9000).",
        "Example: tandem serve --executor simulated --cluster 1x4:RTX3090-24GB --max-gpus-per-user 2"})
final class ServeCommand implements Callable<Integer> {
    @Mixin ServeOptions options;
    @Spec CommandSpec spec;

    @Override public Integer call() throws Exception {
        // a password on the command line is there for every user of the machine to read (ps); from the config file or the
        // environment it stays the daemon's
        if (spec.commandLine().getParseResult().hasMatchedOption("--store") && options.storeHoldsPassword()) {
            spec.commandLine().getErr().println("tandem serve: warning: --store holds a password, which every user of this machine can read in the"
                    + " process list; give it with --store-password-file FILE or $TANDEM_STORE_PASSWORD instead");
        }
        return ServerMain.serveOrExplain(options, spec.commandLine().getErr());
    }
}
