package dev.tandem.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.tandem.cli.CliTest.tandem;
import static org.assertj.core.api.Assertions.assertThat;

/** The completion script completes tandem's commands and each command's own options, in a real bash and zsh. */
class CompletionTest {
    @TempDir Path dir;

    private Path script(String shell) throws Exception {
        CliTest.Run r = tandem("completion", shell);
        assertThat(r.code()).as(r.err()).isZero();
        Path file = dir.resolve("tandem." + shell);
        Files.writeString(file, r.out());
        return file;
    }

    /** What the completion function offers for {@code words}, the last being completed, in {@code shell}. */
    private static String complete(String shell, Path script, String init, int cword, String... words) throws Exception {
        String array = String.join(" ", java.util.Arrays.stream(words).map(w -> "'" + w + "'").toList());
        String code = init + "source '" + script + "'; COMP_WORDS=(" + array + "); COMP_CWORD=" + cword + "; COMP_LINE='" + String.join(" ", words)
                + "'; COMP_POINT=${#COMP_LINE}; _complete_tandem 2>/dev/null; echo \"${COMPREPLY[*]}\"";
        Process p = new ProcessBuilder(shell, "-c", code).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).as(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        return out;
    }

    /** Every command's --help ends with an example, and the example names real options of that command. */
    @Test
    void everyCommandsHelpHasAnExample() {
        java.util.ArrayDeque<picocli.CommandLine> todo = new java.util.ArrayDeque<>(List.of(TandemCommand.commandLine()));
        int seen = 0;
        while (!todo.isEmpty()) {
            picocli.CommandLine cl = todo.pop();
            todo.addAll(cl.getSubcommands().values().stream().filter(c -> !c.getCommandName().equals("help")).toList());
            String help = cl.getUsageMessage();
            assertThat(help).as(cl.getCommandSpec().qualifiedName()).containsPattern("Example:? ");
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("Example: tandem (.*)").matcher(help);
            while (m.find()) {
                for (String word : m.group(1).split("[ ;]+")) {
                    if (word.equals("--") || word.startsWith("(")) break; // the job's own command, or a comment, follows
                    if (!word.startsWith("--")) continue;
                    String option = word.split("=")[0];
                    // the example may be of another command (tandem's own help): look it up from the top
                    String[] words = m.group(1).split(" ");
                    picocli.CommandLine target = TandemCommand.commandLine();
                    for (String w : words) if (target.getSubcommands().containsKey(w)) target = target.getSubcommands().get(w);
                    assertThat(target.getCommandSpec().findOption(option)).as(cl.getCommandSpec().qualifiedName() + ": example option " + option).isNotNull();
                }
            }
            seen++;
        }
        assertThat(seen).isGreaterThan(25);
    }

    @Test
    void bashCompletesCommandsAndTheOptionsOfEach() throws Exception {
        Path s = script("bash");
        assertThat(complete("bash", s, "", 1, "tandem", "hi")).isEqualTo("history");
        assertThat(complete("bash", s, "", 1, "tandem", "re")).isEqualTo("release");
        assertThat(complete("bash", s, "", 2, "tandem", "submit", "--pri")).isEqualTo("--priority");
        assertThat(complete("bash", s, "", 2, "tandem", "serve", "--max-g")).isEqualTo("--max-gpus-per-user");
        assertThat(complete("bash", s, "", 3, "tandem", "users", "limit", "--max")).isEqualTo("--max-gpus");
        assertThat(complete("bash", s, "", 2, "tandem", "completion", "z")).isEqualTo("zsh");
    }

    @Test
    void zshRunsTheSameScriptThroughBashcompinit() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/zsh")) || Files.isExecutable(Path.of("/bin/zsh")), "zsh not installed (.ci/run installs it)");
        Path s = script("zsh");
        String init = "autoload -U +X compinit && compinit -u; ";
        // zsh's compgen emulation offers every candidate of the context and leaves the prefix match to zsh (compadd);
        // what matters is the context: submit's options, not serve's (zsh arrays count from 1)
        List<String> submit = List.of(complete("zsh", s, init, 3, "tandem", "submit", "--pri").split(" "));
        assertThat(submit).contains("--priority", "--array", "--after", "--hold").doesNotContain("--max-gpus-per-user");
        List<String> serve = List.of(complete("zsh", s, init, 3, "tandem", "serve", "--max-g").split(" "));
        assertThat(serve).contains("--max-gpus-per-user", "--config").doesNotContain("--priority");
    }
}
