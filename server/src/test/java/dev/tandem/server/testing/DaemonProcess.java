package dev.tandem.server.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** tandem serve as a separate JVM ({@code java -cp <test class path> dev.tandem.server.ServerMain ...}), to be killed for real. */
public final class DaemonProcess implements AutoCloseable {
    private final Process process;
    private final Path output;
    private final String url;

    private DaemonProcess(Process process, Path output, String url) {
        this.process = process;
        this.output = output;
        this.url = url;
    }

    public static DaemonProcess start(FakeGpuHost host, Path stateDir, Path output, String... extra) {
        try {
            Files.deleteIfExists(stateDir.resolve("server.url"));
            // in a session of its own, as a daemon started from a terminal leads its own process group, so that a
            // test can signal that group (Ctrl-C) without hitting the test JVM
            List<String> cmd = new ArrayList<>(List.of("setsid", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "dev.tandem.server.ServerMain",
                    "--state-dir", stateDir.toString(), "--port", "0", "--tick", "100ms", "--round", "500ms", "--profile-time", "1s",
                    "--observe-time", "1s", "--stop-grace", "2s"));
            cmd.addAll(List.of(extra));
            // the state directory's socket, not the machine's /run/tandem one, which a daemon run as root takes by default
            if (!List.of(extra).contains("--socket")) cmd.addAll(List.of("--socket", stateDir.resolve("tandem.sock").toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
            pb.environment().put("PATH", host.path());
            Process p = pb.start();
            Path urlFile = stateDir.resolve("server.url");
            TestApi.await(Duration.ofSeconds(60), "the daemon to listen (output in " + output + ")", () -> {
                if (!p.isAlive()) throw new AssertionError("the daemon exited with " + p.exitValue() + ":\n" + read(output));
                return Files.exists(urlFile);
            });
            return new DaemonProcess(p, output, Files.readString(urlFile).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    public String url() { return url; }

    public long pid() { return process.pid(); }

    /** SIGKILL: no shutdown hook, no cleanup. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    public String output() { return read(output); }

    /** SIGINT to the daemon's whole process group, as Ctrl-C in the terminal that runs it; waits for it to exit. */
    public int interruptGroup() throws Exception {
        Process kill = new ProcessBuilder("kill", "-INT", "--", "-" + process.pid()).redirectErrorStream(true).start();
        if (kill.waitFor() != 0) throw new AssertionError("kill -INT -" + process.pid() + ": " + new String(kill.getInputStream().readAllBytes()));
        return process.waitFor();
    }

    /** SIGTERM, as systemd stops a service. */
    @Override public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}
