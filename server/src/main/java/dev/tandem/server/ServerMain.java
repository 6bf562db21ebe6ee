package dev.tandem.server;

import ch.qos.logback.classic.Level;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.store.StoreException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** Runs the daemon without the rest of the CLI ({@code java -cp ... dev.tandem.server.ServerMain [options]}); same options as {@code tandem serve}. */
@Command(name = "tandem-serve", mixinStandardHelpOptions = true, defaultValueProvider = ServeSettings.class,
        description = "The tandem scheduler daemon of this GPU machine.")
public final class ServerMain implements Callable<Integer> {
    @Mixin ServeOptions options;

    @Override public Integer call() throws Exception {
        return serveOrExplain(options, new PrintWriter(System.err, true));
    }

    /**
     * Runs the daemon; a start-up failure (or a bad option) prints one {@code tandem: error: ...} line that says
     * what to do, and gives exit code 2, instead of a stack trace.
     */
    public static int serveOrExplain(ServeOptions options, PrintWriter err) throws InterruptedException {
        try {
            ServerLogging.configure(Level.INFO, ServerLogging.Format.parse(options.logFormat));
            return serve(options.toConfig());
        } catch (StartupException | ExecException | StoreException | IllegalStateException | IllegalArgumentException e) {
            err.println("tandem: error: " + e.getMessage());
            err.flush();
            return 2;
        }
    }

    /** Starts the daemon, says where it listens and where the admin token is (never the token), and runs until SIGTERM or SIGINT. */
    private static int serve(ServerConfig cfg) throws InterruptedException {
        TandemServer server = TandemServer.start(cfg);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "tandem-shutdown"));
        System.out.println("tandem serve: listening on " + server.url());
        System.out.println("tandem serve: admin token file " + server.adminTokenFile());
        System.out.flush();
        server.awaitClose();
        return 0;
    }

    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new ServerMain());
        cl.setParameterExceptionHandler(ServeSettings.namingSources(cl.getParameterExceptionHandler()));
        System.exit(cl.execute(args));
    }
}
