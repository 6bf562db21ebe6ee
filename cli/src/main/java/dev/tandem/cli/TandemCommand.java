package dev.tandem.cli;

import dev.tandem.data.DataFormatException;
import dev.tandem.sim.engine.SimulationException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one {@code tandem} command. */
@Command(name = "tandem", mixinStandardHelpOptions = true, footer = {"", "Example: tandem simulate --jobs 200 --sizes 1 --report out/report.html"}, version = "tandem 0.1.0",
        description = "Co-locating scheduler and simulator for deep-learning training jobs on GPU clusters.",
        subcommands = {SimulateCommand.class, SweepCommand.class, CompatCommand.class, PoliciesCommand.class, ServeCommand.class, SubmitCommand.class,
                QueueCommand.class, ShowCommand.class, CancelCommand.class, HoldCommand.Hold.class, HoldCommand.Release.class, HistoryCommand.class,
                LogsCommand.class, GpusCommand.class, UsersCommand.class, CalibrateCommand.class, CompletionCommand.class, CommandLine.HelpCommand.class})
public final class TandemCommand {

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new TandemCommand());
        // serve's settings from its config file or the environment: a value it cannot take names its source
        cl.setParameterExceptionHandler(dev.tandem.server.ServeSettings.namingSources(new ParameterErrors()));
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            Throwable t = ex;
            if (t instanceof DataFormatException || t instanceof IllegalArgumentException || t instanceof SimulationException) {
                cmd.getErr().println("tandem: error: " + t.getMessage());
                return t instanceof SimulationException ? 3 : 2;
            }
            if (t instanceof java.io.UncheckedIOException || t instanceof java.io.IOException || t instanceof dev.tandem.server.exec.ExecException) {
                cmd.getErr().println("tandem: error: " + t.getMessage());
                return 1;
            }
            throw ex;
        });
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
