package dev.tandem.server.exec;

import java.io.IOException;
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
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(h.pid()), "stat"));
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (IOException e) {
            return h.isAlive();
        }
    }

    static Long startMillis(ProcessHandle h) {
        return h.info().startInstant().map(i -> i.toEpochMilli()).orElse(null);
    }

    /** The process's arguments (without the command), where the OS tells them. */
    static Optional<List<String>> arguments(ProcessHandle h) {
        return h.info().arguments().map(List::of);
    }
}
