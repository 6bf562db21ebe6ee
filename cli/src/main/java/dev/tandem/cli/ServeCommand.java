package dev.tandem.cli;

import dev.tandem.server.ServeOptions;
import dev.tandem.server.ServerMain;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code tandem serve}: the scheduler daemon of this GPU machine (runs until SIGTERM or Ctrl-C). */
@Command(name = "serve", mixinStandardHelpOptions = true, description = {
        "Run the live scheduler on this machine's GPUs: an HTTP API on 127.0.0.1, jobs as child processes.",
        "On first start it creates the admin user and writes its token to STATE_DIR/admin.token (mode 0600).",
        "Jobs keep running when the daemon stops (Ctrl-C, SIGTERM) and are re-adopted by the next one."})
final class ServeCommand implements Callable<Integer> {
    @Mixin ServeOptions options;
    @Spec CommandSpec spec;

    @Override public Integer call() throws Exception {
        return ServerMain.serveOrExplain(options, spec.commandLine().getErr());
    }
}
