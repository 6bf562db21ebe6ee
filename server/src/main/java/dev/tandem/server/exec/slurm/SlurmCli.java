package dev.tandem.server.exec.slurm;

import dev.tandem.server.exec.ExecException;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.ExecutorUnavailable;
import dev.tandem.server.exec.ToolPath;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs Slurm's command-line clients as argv lists (never through a shell). The CLI, not slurmrestd, because it
 * is the interface that stays stable across Slurm versions and needs no extra daemon or token. Used by the Slurm
 * executor and by {@code tandem sweep --executor slurm}.
 */
public final class SlurmCli {
    private static final long TIMEOUT_S = 30;
    /** What Slurm's clients print when slurmctld cannot be reached (down, restarting, overloaded), after ~9 s of retries. */
    private static final List<String> UNREACHABLE = List.of("Unable to contact slurm controller", "Socket timed out",
            "Zero Bytes were transmitted or received", "Slurm backup controller in standby mode");
    private final ToolPath tools;

    public SlurmCli(ToolPath tools) {
        this.tools = tools;
    }

    public record Result(int code, String out, String err) {}

    /**
     * Runs the tool and returns stdout; a non-zero exit is an {@link ExecException} with its stderr, an
     * {@link ExecutorUnavailable} when the controller could not be reached (so the tool did nothing).
     */
    public String run(String tool, List<String> args) {
        Result r = tryRun(tool, args);
        if (r.code == 0) return r.out;
        String msg = tool + " " + String.join(" ", args) + " exited with " + r.code + ": " + r.err.strip();
        if (UNREACHABLE.stream().anyMatch(r.err::contains)) throw new ExecutorUnavailable(msg);
        throw new ExecException(msg);
    }

    /**
     * Fails as {@link #run} would when one of {@code commands} is missing, before a caller writes anything it would leave
     * behind (a sweep's work directory).
     */
    public void require(String... commands) {
        for (String c : commands) path(c);
    }

    private String path(String tool) {
        return tools.require(tool, "--executor slurm needs Slurm's client commands (sbatch, squeue, scontrol, scancel)").toString();
    }

    public Result tryRun(String tool, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(path(tool));
        cmd.addAll(args);
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            // sbatch exports its environment to the job by default
            Executor.DAEMON_SECRETS.forEach(pb.environment()::remove);
            Process p = pb.start();
            CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
                try {
                    return p.getErrorStream().readAllBytes();
                } catch (IOException e) {
                    return new byte[0];
                }
            }, Thread::startVirtualThread);
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new ExecutorUnavailable(tool + " did not answer within " + TIMEOUT_S + " s");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err.join(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ExecException("cannot run " + tool + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecException("interrupted while running " + tool, e);
        }
    }
}
