package dev.tandem.server;

import dev.tandem.core.policies.Objective;
import dev.tandem.core.policies.TandemPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

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
        assertThat(parse().scheduler().online()).isTrue();
        assertThat(parse("--no-online").scheduler().online()).as("as simulate --no-online").isFalse();
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
        for (String[] bad : new String[][] {{"--tandem-starvation", "0s", "--tandem-starvation must be positive, got 0.0 s"},
                {"--tandem-min-speed", "2", "--tandem-min-speed must be within 0..1, got 2.0"}, {"--tandem-window", "0", "--tandem-window must be at least 1, got 0"},
                {"--tandem-urgency", "-1", "--tandem-urgency must be at least 0, got -1.0"},
                {"--slurm-pending-limit", "0s", "--slurm-pending-limit must be positive"}}) {
            StringWriter out = new StringWriter();
            int exit;
            try (PrintWriter w = new PrintWriter(out, true)) {
                exit = ServerMain.serveOrExplain(CommandLine.populateCommand(new ServerMain(), bad[0], bad[1]).options, w);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            assertThat(exit).as(bad[0]).isEqualTo(2);
            assertThat(out.toString().strip()).isEqualTo("tandem: error: " + bad[2]);
        }
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

    /** Parses serve's command line with {@code env} as the environment. */
    static ServerConfig parse(Map<String, String> env, String... args) {
        CommandLine cl = new CommandLine(new ServerMain()).setDefaultValueProvider(new ServeSettings(env::get));
        cl.parseArgs(args);
        return ((ServerMain) cl.getCommand()).options.toConfig();
    }

    @Test
    void everyOptionCanComeFromTheConfigFileAndTheEnvironmentAndTheCommandLineWins(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("tandem.yaml");
        Files.writeString(yaml, """
                # a site's serve settings
                port: 9100
                policy: fifo-packed
                max-gpus-per-user: 4
                tandem-starvation: 3d
                objective: jct
                stop-jobs-on-shutdown: true
                slurm-nodes: [gpu1, gpu2]
                slurm-pending-limit: 45s
                executor: simulated
                """);
        ServerConfig fromFile = parse(Map.of(), "--config", yaml.toString());
        assertThat(fromFile.port()).isEqualTo(9100);
        assertThat(fromFile.policy()).isEqualTo("fifo-packed");
        assertThat(fromFile.scheduler().maxGpusPerUser()).isEqualTo(4);
        assertThat(fromFile.scheduler().tandem().starvationSeconds()).isEqualTo(3 * 86_400);
        assertThat(fromFile.scheduler().tandem().objective()).isEqualTo(Objective.JCT);
        assertThat(fromFile.stopJobsOnShutdown()).isTrue();
        assertThat(fromFile.slurm().nodes()).containsExactly("gpu1", "gpu2");
        assertThat(fromFile.slurm().pendingLimitMs()).isEqualTo(45_000);
        assertThat(parse(Map.of()).slurm().pendingLimitMs()).isEqualTo(dev.tandem.server.exec.slurm.SlurmSettings.DEFAULT_PENDING_LIMIT_MS);
        assertThat(fromFile.executor()).isEqualTo("simulated");

        ServerConfig envWins = parse(Map.of("TANDEM_PORT", "9200", "TANDEM_MAX_GPUS_PER_USER", "2"), "--config", yaml.toString());
        assertThat(envWins.port()).isEqualTo(9200);
        assertThat(envWins.scheduler().maxGpusPerUser()).isEqualTo(2);
        assertThat(envWins.policy()).isEqualTo("fifo-packed");
        ServerConfig argWins = parse(Map.of("TANDEM_PORT", "9200"), "--config", yaml.toString(), "--port", "9300", "--policy", "tandem");
        assertThat(argWins.port()).isEqualTo(9300);
        assertThat(argWins.policy()).isEqualTo("tandem");
        ServerConfig viaEnv = parse(Map.of("TANDEM_CONFIG", yaml.toString()));
        assertThat(viaEnv.port()).as("$TANDEM_CONFIG names the file").isEqualTo(9100);
        assertThat(parse(Map.of()).port()).as("no file: the defaults").isEqualTo(8265);
        Files.writeString(dir.resolve("empty.yaml"), "");
        assertThat(parse(Map.of(), "--config", dir.resolve("empty.yaml").toString()).port()).isEqualTo(8265);
    }

    @Test
    void aBadConfigFileIsRefusedNamingFileLineAndKey(@TempDir Path dir) throws Exception {
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("port: 9100\nprot: 9200\n", "bad.yaml line 2: unknown setting 'prot'; settings are serve's options without the dashes: ");
        cases.put("port: 9100\nport: 9200\n", "bad.yaml line 2: 'port' is set twice");
        cases.put("policy:\n  name: fifo\n", "bad.yaml line 1: 'policy' needs a plain value (a number, a word, true/false, or a list)");
        cases.put("- port\n- 9100\n", "bad.yaml line 1: the file must be a mapping of serve options, e.g. port: 8265");
        cases.put("port: [9100\n", "bad.yaml line 2: not valid YAML: while parsing a flow sequence: expected ',' or ']', but got <stream end>");
        cases.put("port: 9100\nround: soon\n", "Invalid value for option '--round': 'soon' is not a duration");
        cases.put("# ports\n\nport: nine\n", "Invalid value for option '--port': 'nine' is not an int (from " + dir.resolve("bad.yaml") + " line 3)");
        for (var c : cases.entrySet()) {
            Path bad = dir.resolve("bad.yaml");
            Files.writeString(bad, c.getKey());
            StringWriter err = new StringWriter();
            CommandLine cl = new CommandLine(new ServerMain()).setDefaultValueProvider(new ServeSettings(Map.<String, String>of()::get));
            cl.setParameterExceptionHandler(ServeSettings.namingSources(cl.getParameterExceptionHandler()));
            cl.setErr(new PrintWriter(err, true));
            assertThat(cl.execute("--config", bad.toString())).as(c.getKey()).isEqualTo(2);
            assertThat(err.toString()).as(c.getKey()).contains(c.getValue().startsWith("bad.yaml") ? bad.getParent() + "/" + c.getValue() : c.getValue());
        }
        // from the environment, and typed: the source named only where it supplied the value
        for (String[] typed : new String[][] {{}, {"--port", "ten"}}) {
            StringWriter err = new StringWriter();
            CommandLine cl = new CommandLine(new ServerMain()).setDefaultValueProvider(new ServeSettings(Map.of("TANDEM_PORT", "ten")::get));
            cl.setParameterExceptionHandler(ServeSettings.namingSources(cl.getParameterExceptionHandler()));
            cl.setErr(new PrintWriter(err, true));
            assertThat(cl.execute(typed)).isEqualTo(2);
            assertThat(err.toString()).contains("Invalid value for option '--port': 'ten' is not an int" + (typed.length == 0 ? " (from $TANDEM_PORT)" : System.lineSeparator()));
        }
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new ServerMain());
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("--config", dir.resolve("none.yaml").toString())).isEqualTo(2);
        assertThat(err.toString()).contains(dir.resolve("none.yaml") + ": no such config file");
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
