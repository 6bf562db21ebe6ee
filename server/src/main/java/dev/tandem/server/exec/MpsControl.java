package dev.tandem.server.exec;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The NVIDIA MPS control daemon for {@code --sharing mps}: started with {@code nvidia-cuda-mps-control -d} and
 * its pipe and log directories under the state directory (so jobs find it through the same variables), stopped
 * by writing {@code quit} to it.
 */
final class MpsControl {
    private static final Logger log = LoggerFactory.getLogger(MpsControl.class);

    private final Path tool;
    private final Path pipeDir;
    private final Path logDir;

    MpsControl(ToolPath tools, Path stateDir) {
        this.tool = tools.require("nvidia-cuda-mps-control", "--sharing mps needs NVIDIA MPS");
        this.pipeDir = stateDir.resolve("mps/pipe");
        this.logDir = stateDir.resolve("mps/log");
    }

    /** What every job needs in its environment to reach this MPS daemon. */
    Map<String, String> clientEnv() {
        return Map.of("CUDA_MPS_PIPE_DIRECTORY", pipeDir.toString(), "CUDA_MPS_LOG_DIRECTORY", logDir.toString());
    }

    void start() {
        try {
            Files.createDirectories(pipeDir);
            Files.createDirectories(logDir);
        } catch (IOException e) {
            throw new ExecException("cannot create MPS directories under " + pipeDir.getParent() + ": " + e.getMessage(), e);
        }
        int code = run(List.of(tool.toString(), "-d"), null);
        // an MPS daemon left running by an earlier tandem serve (whose jobs we re-adopt) refuses a second start
        if (code != 0) log.warn("nvidia-cuda-mps-control -d exited with {} (already running?); using the running MPS daemon", code);
        else log.info("MPS control daemon started (pipes in {})", pipeDir);
    }

    void stop() {
        int code = run(List.of(tool.toString()), "quit\n");
        if (code != 0) log.warn("stopping the MPS control daemon exited with {}", code);
    }

    private int run(List<String> cmd, String input) {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve("control.out").toFile()));
            pb.environment().putAll(clientEnv());
            Process p = pb.start();
            try (OutputStream in = p.getOutputStream()) {
                if (input != null) in.write(input.getBytes(StandardCharsets.UTF_8));
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            throw new ExecException("cannot run " + cmd.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
