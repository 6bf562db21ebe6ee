package dev.tandem.cli;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/**
 * {@code tandem completion bash|zsh}: the shell completion script picocli generates from tandem's commands and
 * options (so it never falls behind them). The script is bash's; zsh runs it through bashcompinit, which the script
 * loads itself when it sees zsh.
 */
@Command(name = "completion", mixinStandardHelpOptions = true, description = {
        "Print a shell completion script for tandem's commands and options."},
        footer = {"", "Example: source <(tandem completion bash)   (or save it as ~/.local/share/bash-completion/completions/tandem)",
                "Example: source <(tandem completion zsh)    (e.g. in ~/.zshrc)"})
final class CompletionCommand implements Callable<Integer> {
    enum Shell { bash, zsh }

    @Parameters(paramLabel = "SHELL", description = "bash or zsh")
    Shell shell;

    @Override public Integer call() {
        CommandLine tandem = TandemCommand.commandLine();
        System.out.print(AutoComplete.bash("tandem", tandem));
        return 0;
    }
}
