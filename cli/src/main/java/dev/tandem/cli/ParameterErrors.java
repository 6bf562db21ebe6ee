package dev.tandem.cli;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;

/**
 * What a command line picocli cannot take gets: the error, picocli's suggestions for a mistyped option or command, and
 * where the command's help is. picocli's own handler printed the whole help page after the error (eighty lines for
 * {@code tandem submit}), which buried the one line that mattered. A command that groups others ({@code tandem},
 * {@code tandem users}) still lists them: that list is short, and it is what the caller needs.
 */
final class ParameterErrors implements CommandLine.IParameterExceptionHandler {
    @Override public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("tandem: error: " + ex.getMessage());
        UnmatchedArgumentException.printSuggestions(ex, err);
        if (!cmd.getSubcommands().isEmpty()) cmd.usage(err);
        else err.println("See '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }
}
