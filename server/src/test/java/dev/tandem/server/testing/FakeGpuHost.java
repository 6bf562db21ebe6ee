package dev.tandem.server.testing;

import dev.tandem.server.ServerConfig;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.sched.SchedulerConfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A machine without GPUs made to look like one for tandem serve: the test doubles of nvidia-smi (and, on request,
 * dcgmi and nvidia-cuda-mps-control) put first on the tools' PATH, replaying NVIDIA's documented output formats
 * from recorded files, plus the CPU training program {@code train.sh}.
 */
public final class FakeGpuHost {
    private static final List<String> DATA = List.of("inventory-h100x1.csv", "inventory-h100x2.csv", "inventory-a100-mixed.csv",
            "samples-h100x1.csv", "samples-h100x2.csv", "samples-a100-mixed.csv", "dmon-h100x1.txt", "dmon-h100x2.txt");

    private final Path dir;

    private FakeGpuHost(Path dir) {
        this.dir = dir;
    }

    /** Installs the doubles in {@code dir}; {@code fixture} is h100x1, h100x2 or a100-mixed. */
    public static FakeGpuHost install(Path dir, String fixture, boolean dcgm, boolean mps) {
        try {
            Files.createDirectories(dir.resolve("bin"));
            Files.createDirectories(dir.resolve("data"));
            copy("bin/nvidia-smi", dir, true);
            if (dcgm) copy("bin/dcgmi", dir, true);
            if (mps) copy("bin/nvidia-cuda-mps-control", dir, true);
            copy("train.sh", dir, true);
            for (String d : DATA) copy("data/" + d, dir, false);
            Files.writeString(dir.resolve("fixture"), fixture);
            return new FakeGpuHost(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static FakeGpuHost install(Path dir, String fixture) { return install(dir, fixture, false, false); }

    private static void copy(String resource, Path dir, boolean executable) throws IOException {
        try (InputStream in = FakeGpuHost.class.getResourceAsStream("/fake/" + resource)) {
            if (in == null) throw new IOException("test resource fake/" + resource + " is missing");
            Path target = dir.resolve(resource);
            Files.write(target, in.readAllBytes());
            if (executable) Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    public Path dir() { return dir; }

    /** PATH with the doubles first: for in-process daemons, and as the PATH of daemon processes. */
    public String path() { return dir.resolve("bin") + ":" + System.getenv("PATH"); }

    public ToolPath tools() { return new ToolPath(path()); }

    public String trainScript() { return dir.resolve("train.sh").toString(); }

    /** Makes nvidia-smi report these lines (one per GPU) from now on. */
    public void overrideSamples(String lines) {
        try {
            Path tmp = dir.resolve("override.tmp");
            Files.writeString(tmp, lines);
            Files.move(tmp, dir.resolve("override-samples.csv"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Makes nvidia-smi list these compute processes ("GPU-uuid, pid, name, MiB" lines; empty: none) from now on. */
    public void computeApps(String lines) {
        try {
            Path tmp = dir.resolve("apps.tmp");
            Files.writeString(tmp, lines);
            Files.move(tmp, dir.resolve("compute-apps.csv"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path mpsCalls() { return dir.resolve("mps-calls.log"); }

    /**
     * A configuration with short times, so that tests see profiling, pairing and restarts within seconds; no known
     * profiles, so that every new workload (the bundled data's too) is profiled on the fake GPUs first.
     */
    public ServerConfig config(Path stateDir, String policy, Sharing sharing) {
        return new ServerConfig(stateDir, "127.0.0.1", 0, null, policy, sharing, 50,
                new SchedulerConfig(100, 500, 1000, 1000, 3, 512).withKnownProfiles("none"), 2000, 64 * 1024, true, tools());
    }

    public ServerConfig config(Path stateDir) { return config(stateDir, "tandem", Sharing.TIME_SLICING); }
}
