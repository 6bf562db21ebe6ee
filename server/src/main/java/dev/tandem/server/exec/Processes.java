package dev.tandem.server.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Linux process facts that ProcessHandle does not give. */
final class Processes {
    private Processes() {}

    /**
     * Alive and not a zombie. A re-adopted job is no longer our child; where nobody reaps it (a container whose
     * init does not), it lingers as a zombie that ProcessHandle still calls alive.
     */
    static boolean alive(ProcessHandle h) {
        if (!h.isAlive()) return false;
        String stat = stat(h.pid());
        return stat == null ? h.isAlive() : !zombie(stat);
    }

    /**
     * /proc/PID/stat, or null where it cannot be read (the process is gone, another user's, not Linux). Read as
     * ISO-8859-1: the command name in it is whatever bytes the program chose.
     */
    static String stat(long pid) {
        try {
            return Files.readString(Path.of("/proc", String.valueOf(pid), "stat"), StandardCharsets.ISO_8859_1);
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    /** The fields of a stat line follow the command name, which is in parentheses and may itself hold any of them. */
    private static int commandEnd(String stat) { return stat.lastIndexOf(')'); }

    /** Whether a stat line's state is Z (ended, not yet reaped). */
    static boolean zombie(String stat) {
        int close = commandEnd(stat);
        return close >= 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z';
    }

    /** The session id of a stat line: the fourth field after the command name; -1 if the line is not one. */
    static long session(String stat) {
        int close = commandEnd(stat);
        if (close < 0 || close + 2 > stat.length()) return -1;
        String[] f = stat.substring(close + 2).split(" ");
        try {
            return f.length > 3 ? Long.parseLong(f[3]) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The command name of a stat line, or null. */
    static String command(String stat) {
        int open = stat.indexOf('('), close = commandEnd(stat);
        return open >= 0 && close > open ? stat.substring(open + 1, close) : null;
    }

    static Long startMillis(ProcessHandle h) {
        return h.info().startInstant().map(i -> i.toEpochMilli()).orElse(null);
    }

    /** The process's arguments (without the command), where the OS tells them. */
    static Optional<List<String>> arguments(ProcessHandle h) {
        return h.info().arguments().map(List::of);
    }
}
