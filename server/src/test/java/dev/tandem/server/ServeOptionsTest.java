package dev.tandem.server;

import dev.tandem.core.policies.Objective;
import dev.tandem.core.policies.TandemPolicy;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** serve takes the scheduling options simulate takes, with the same names, syntax and defaults. */
class ServeOptionsTest {
    static ServerConfig parse(String... args) {
        return CommandLine.populateCommand(new ServerMain(), args).options.toConfig();
    }

    @Test
    void theTandemTunablesAndObjectiveReachTheScheduler() {
        ServerConfig c = parse("--objective", "jct", "--tandem-min-speed", "0.7", "--tandem-min-gain", "0.2", "--tandem-caution", "2",
                "--tandem-window", "64", "--tandem-starvation", "2d", "--tandem-urgency", "0", "--memory-margin", "1024",
                "--executor", "simulated", "--cluster", "2x4:A100-80GB", "--time-scale", "120", "--model", "util-sum");
        TandemPolicy.Config t = c.scheduler().tandem();
        assertThat(t).isEqualTo(new TandemPolicy.Config(0.7, 0.2, 2, 64, 2 * 86_400, 0, Objective.JCT));
        assertThat(c.scheduler().memoryMarginMiB()).isEqualTo(1024);
        assertThat(c.scheduler().model()).isEqualTo("util-sum");
        assertThat(parse().scheduler().model()).isEqualTo("auto");
        assertThat(c.simulated().cluster()).isEqualTo("2x4:A100-80GB");
        assertThat(c.simulated().timeScale()).isEqualTo(120);
        assertThat(parse().scheduler().tandem()).as("the defaults are simulate's").isEqualTo(TandemPolicy.Config.defaults());
    }

    @Test
    void aBadSchedulingOptionIsOneLineAndExitCodeTwo() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new ServerMain());
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("--tandem-starvation", "soon")).isEqualTo(2);
        assertThat(err.toString()).contains("'soon' is not a duration");
        StringWriter err2 = new StringWriter();
        int code;
        try (PrintWriter w = new PrintWriter(err2, true)) {
            code = ServerMain.serveOrExplain(CommandLine.populateCommand(new ServerMain(), "--objective", "fastest").options, w);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err2.toString().lines().toList()).hasSize(1).allMatch(l -> l.startsWith("tandem: error: ") && l.contains("fastest"));
        StringWriter err3 = new StringWriter();
        try (PrintWriter w = new PrintWriter(err3, true)) {
            code = ServerMain.serveOrExplain(CommandLine.populateCommand(new ServerMain(), "--model", "oracle").options, w);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err3.toString()).isEqualTo("tandem: error: unknown model 'oracle'; known: auto, knn, util-sum, measured" + System.lineSeparator());
    }

    /** Each oracle simulate offers builds in the daemon too (on simulated GPUs, so that no nvidia-smi is needed). */
    @Test
    void everyOracleStartsTheDaemon(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        for (String model : java.util.List.of("knn", "util-sum", "measured")) {
            ServerConfig c = parse("--executor", "simulated", "--model", model, "--port", "0", "--state-dir", dir.resolve(model).toString());
            try (TandemServer server = TandemServer.start(c)) {
                assertThat(server.url()).as(model).startsWith("http://127.0.0.1:");
            }
        }
    }
}
