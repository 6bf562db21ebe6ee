package dev.tandem.server.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Copies a job's output to where its owner asked for it, as a file of the owner's: coreutils' {@code tee} started
 * with the owner's rights reads the daemon's copy on its standard input and writes the target. So the daemon never
 * writes where the owner could not: a path into the state directory, or a symbolic link planted to another user's
 * file, fails as it would for the owner, and the reason is returned for the job's history.
 */
final class OutputHandOver {
    /** coreutils' tee. */
    private static final String TEE = "/usr/bin/tee";
    private static final long TIMEOUT_S = 60;

    private OutputHandOver() {}

    /**
     * @param asOwner the argv prefix that switches to the owner's account (empty: the daemon's own)
     * @return completes, on a virtual thread of its own, with why the copy failed, or empty
     */
    static CompletableFuture<Optional<String>> copy(Path log, List<String> asOwner, Path target, String threadName) {
        return CompletableFuture.supplyAsync(() -> run(log, asOwner, target), r -> Thread.ofVirtual().name(threadName).start(r));
    }

    private static Optional<String> run(Path log, List<String> asOwner, Path target) {
        List<String> cmd = new ArrayList<>(asOwner);
        cmd.addAll(List.of(TEE, target.toString()));
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(log.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/bin:/bin");
            pb.environment().put("LC_ALL", "C"); // tee's messages in English, as the history is
            Process p = pb.start();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.of("copying its output to " + target + " took over " + TIMEOUT_S + " s; stopped");
            }
            if (p.exitValue() != 0) return Optional.of("cannot copy its output to " + target + ": " + err.replaceFirst("^" + TEE + ": ", ""));
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("cannot copy its output to " + target + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while copying its output to " + target);
        }
    }
}
