package dev.tandem.server;

import ch.qos.logback.classic.Level;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.store.StoreException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/** Runs the daemon without the rest of the CLI ({@code java -cp ... dev.tandem.server.ServerMain [options]}); same options as {@code tandem serve}. */
@Command(name = "tandem-serve", mixinStandardHelpOptions = true, description = "The tandem scheduler daemon of this GPU machine.")
public final class ServerMain implements Callable<Integer> {
    @Mixin ServeOptions options;

    @Override public Integer call() throws Exception {
        try {
            return serve(options.toConfig());
        } catch (ExecException | StoreException | IllegalStateException | IllegalArgumentException e) {
            System.err.println("tandem serve: error: " + e.getMessage());
            return 1;
        }
    }

    /** Starts the daemon, says where it listens and where the admin token is (never the token), and runs until SIGTERM or SIGINT. */
    public static int serve(ServerConfig cfg) throws InterruptedException {
        ServerLogging.configure(Level.INFO);
        TandemServer server = TandemServer.start(cfg);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "tandem-shutdown"));
        System.out.println("tandem serve: listening on " + server.url());
        System.out.println("tandem serve: admin token file " + server.adminTokenFile());
        System.out.flush();
        server.awaitClose();
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ServerMain()).execute(args));
    }
}
