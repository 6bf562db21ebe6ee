package dev.tandem.server.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The processes a run left behind when its main process ended: those still in the run's session (each run is the
 * leader of a session of its own), and those carrying the run's {@link #MARKER} in their environment, which a job's
 * {@code setsid} or double fork takes out of the session but not out of the environment. Read from /proc (Linux);
 * where there is none, nothing is found. A process that cleared its environment and left the session escapes; a
 * cgroup per run would not let it, and is not used yet.
 */
public final class Leftovers {
    /** Environment variable every run's processes inherit; its value names the run. */
    public static final String MARKER = "TANDEM_RUN";
    private static final Path PROC = Path.of("/proc");
    private static final byte[] PREFIX = (MARKER + "=").getBytes(StandardCharsets.UTF_8);

    private Leftovers() {}

    /** The run's live processes other than {@code sessionLeader} itself ({@code sessionLeader} <= 0: by the marker only). */
    public static List<ProcessHandle> of(long sessionLeader, String marker) {
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, p -> isNumber(p.getFileName().toString()))) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid == sessionLeader || pid == self) continue;
                String stat = Processes.stat(pid);
                if (stat == null || Processes.zombie(stat)) continue;
                if ((sessionLeader > 0 && Processes.session(stat) == sessionLeader) || marker.equals(variable(dir.resolve("environ")))) {
                    ProcessHandle.of(pid).ifPresent(out::add);
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        return out;
    }

    /** The value of a process's {@link #MARKER}, or null where it has none or its environment cannot be read. */
    public static String markerOf(long pid) {
        return variable(PROC.resolve(String.valueOf(pid)).resolve("environ"));
    }

    /** "pid 123 (sleep), pid 124 (python3)", from /proc's command names. */
    public static String describe(List<ProcessHandle> processes) {
        return processes.stream().map(h -> {
            String stat = Processes.stat(h.pid());
            String command = stat == null ? null : Processes.command(stat);
            return "pid " + h.pid() + (command != null ? " (" + command + ")" : "");
        }).collect(Collectors.joining(", "));
    }

    /**
     * The value of {@link #MARKER} in a NUL-separated environment file, or null where it has none or cannot be read;
     * only that entry is decoded (every process's environment is read when looking for leftovers).
     */
    private static String variable(Path environ) {
        byte[] env;
        try {
            env = Files.readAllBytes(environ);
        } catch (IOException | SecurityException e) {
            return null;
        }
        int from = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i < env.length && env[i] != 0) continue;
            if (i - from >= PREFIX.length && Arrays.equals(env, from, from + PREFIX.length, PREFIX, 0, PREFIX.length)) {
                return new String(env, from + PREFIX.length, i - from - PREFIX.length, StandardCharsets.UTF_8);
            }
            from = i + 1;
        }
        return null;
    }

    private static boolean isNumber(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) if (!Character.isDigit(s.charAt(i))) return false;
        return true;
    }
}
