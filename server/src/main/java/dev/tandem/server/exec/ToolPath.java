package dev.tandem.server.exec;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the NVIDIA tools (nvidia-smi, dcgmi, nvidia-cuda-mps-control) on a search path, normally the daemon's
 * PATH; tests put their stand-ins first on it.
 */
public record ToolPath(String path) {
    public static ToolPath fromEnvironment() {
        String p = System.getenv("PATH");
        return new ToolPath(p == null ? "/usr/bin:/bin" : p);
    }

    /**
     * A tool of the system's own (util-linux's setpriv and setsid) from /usr/bin or /bin, not from the search path, which
     * may start with test doubles or a user's directories: the daemon switches accounts and sessions with these.
     */
    public static Optional<Path> system(String tool) {
        return Stream.of(Path.of("/usr/bin", tool), Path.of("/bin", tool)).filter(Files::isExecutable).findFirst();
    }

    public Optional<Path> find(String tool) {
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isBlank()) continue;
            Path p = Path.of(dir, tool);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    public Path require(String tool, String why) {
        return find(tool).orElseThrow(() -> new ExecException(tool + " is not on PATH (" + path + "); " + why));
    }
}
