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

    private Leftovers() {}

    /** The run's live processes other than {@code sessionLeader} itself ({@code sessionLeader} <= 0: by the marker only). */
    public static List<ProcessHandle> of(long sessionLeader, String marker) {
        byte[] needle = (MARKER + "=" + marker).getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, p -> isNumber(p.getFileName().toString()))) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid == sessionLeader || pid == self) continue;
                String stat = read(dir.resolve("stat"));
                if (stat == null || zombie(stat)) continue;
                if ((sessionLeader > 0 && session(stat) == sessionLeader) || hasVariable(dir.resolve("environ"), needle)) {
                    ProcessHandle.of(pid).ifPresent(out::add);
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        return out;
    }

    /** "pid 123 (sleep), pid 124 (python3)", from /proc's command names. */
    public static String describe(List<ProcessHandle> processes) {
        return processes.stream().map(h -> {
            String stat = read(PROC.resolve(String.valueOf(h.pid())).resolve("stat"));
            int open = stat == null ? -1 : stat.indexOf('('), close = stat == null ? -1 : stat.lastIndexOf(')');
            return "pid " + h.pid() + (open >= 0 && close > open ? " (" + stat.substring(open + 1, close) + ")" : "");
        }).collect(Collectors.joining(", "));
    }

    /** The session id in /proc/PID/stat: the fourth field after the command name in parentheses. */
    static long session(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) return -1;
        String[] f = stat.substring(close + 2).split(" ");
        try {
            return f.length > 3 ? Long.parseLong(f[3]) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean zombie(String stat) {
        int close = stat.lastIndexOf(')');
        return close >= 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z';
    }

    /** Whether the NUL-separated environment holds exactly this NAME=value entry (unreadable: no). */
    private static boolean hasVariable(Path environ, byte[] entry) {
        byte[] env;
        try {
            env = Files.readAllBytes(environ);
        } catch (IOException | SecurityException e) {
            return false;
        }
        int from = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i < env.length && env[i] != 0) continue;
            if (i - from == entry.length && Arrays.equals(env, from, i, entry, 0, entry.length)) return true;
            from = i + 1;
        }
        return false;
    }

    private static String read(Path f) {
        try {
            return Files.readString(f, StandardCharsets.ISO_8859_1);
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    private static boolean isNumber(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) if (!Character.isDigit(s.charAt(i))) return false;
        return true;
    }
}
