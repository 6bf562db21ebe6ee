package dev.tandem.cli;

import dev.tandem.server.ServeOptions;
import dev.tandem.server.ServerMain;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.store.StoreException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.util.concurrent.Callable;

/** {@code tandem serve}: the scheduler daemon of this GPU machine (runs until SIGTERM or Ctrl-C). */
@Command(name = "serve", mixinStandardHelpOptions = true, description = {
        "Run the live scheduler on this machine's GPUs: an HTTP API on 127.0.0.1, jobs as child processes.",
        "On first start it creates the admin user and writes its token to STATE_DIR/admin.token (mode 0600)."})
final class ServeCommand implements Callable<Integer> {
    @Mixin ServeOptions options;

    @Override public Integer call() throws Exception {
        try {
            return ServerMain.serve(options.toConfig());
        } catch (ExecException | StoreException | IllegalStateException e) {
            // a machine without NVIDIA driver, an unreachable database: a message, not a stack trace
            throw new IOException(e.getMessage(), e);
        }
    }
}
