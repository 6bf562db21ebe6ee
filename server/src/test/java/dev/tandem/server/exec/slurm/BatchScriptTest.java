package dev.tandem.server.exec.slurm;

import dev.tandem.server.exec.ExecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The batch script Slurm runs, run here by bash directly: argv and environment arrive byte for byte, the exit status is recorded. */
class BatchScriptTest {
    static final List<String> NASTY = List.of("it's \"quoted\"", "two  spaces", "$(touch pwned)", "a; touch pwned2", "line1\nline2", "", "*", "`id`", "ünïcødé \\ back");

    @TempDir Path dir;

    @Test
    void argvAndEnvironmentPassThroughUntouched() throws Exception {
        Path script = dir.resolve("run.sh");
        try (InputStream in = SlurmExecutor.class.getResourceAsStream("tandem-slurm-run.sh")) {
            Files.write(script, in.readAllBytes());
        }
        Path out = dir.resolve("out");
        // the "job" prints each argument NUL-terminated, then the variable
        List<String> argv = new java.util.ArrayList<>(List.of("/bin/bash", "-c", "printf '%s\\0' \"$@\" > \"$OUT\"; printf '%s' \"$MY_VAR\" >> \"$OUT\"; exit 7", "job"));
        argv.addAll(NASTY);
        Files.write(dir.resolve("argv-2"), JobFiles.nulSeparated(argv));
        Files.write(dir.resolve("env-2"), JobFiles.nulSeparated(List.of("OUT=" + out, "MY_VAR=x y \"z\" $(no)\n;")));
        Process p = new ProcessBuilder("/bin/bash", script.toString(), dir.toString(), "2").directory(dir.toFile()).inheritIO().start();
        assertThat(p.waitFor()).isEqualTo(7);
        String got = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(got).isEqualTo(String.join("\0", NASTY) + "\0" + "x y \"z\" $(no)\n;");
        assertThat(Files.readString(dir.resolve("exit-2")).strip()).isEqualTo("7");
        assertThat(dir.resolve("pwned")).doesNotExist();
        assertThat(dir.resolve("pwned2")).doesNotExist();
    }

    @Test
    void aNulByteCannotBePassedAndIsRefused() {
        assertThatThrownBy(() -> JobFiles.nulSeparated(List.of("a\0b"))).isInstanceOf(ExecException.class);
    }
}
