package dev.tandem.server.exec;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LeftoversTest {
    @Test
    void theSessionIdIsTheFourthFieldAfterTheCommandName() {
        // a command name may hold spaces and parentheses: the last ')' ends it
        assertThat(Processes.session("4242 (odd) name) S 1 4240 4241 0 -1 4194560")).isEqualTo(4241);
        assertThat(Processes.session("garbage")).isEqualTo(-1);
    }

    /** A process in a session of its own is found by the marker in its environment, and only by the exact value. */
    @Test
    void aProcessThatLeftTheSessionIsFoundByItsMarker() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("setsid", "sleep", "30");
        pb.environment().put(Leftovers.MARKER, "/state/jobs/7#1");
        Process p = pb.start();
        try {
            assertThat(awaitFound(-1, "/state/jobs/7#1")).extracting(ProcessHandle::pid).contains(p.pid());
            assertThat(Leftovers.of(-1, "/state/jobs/7#")).extracting(ProcessHandle::pid).doesNotContain(p.pid());
            assertThat(Leftovers.of(-1, "/state/jobs/7#12")).extracting(ProcessHandle::pid).doesNotContain(p.pid());
            assertThat(Leftovers.of(-1, "no-such-run")).as("without a session only the marker counts").isEmpty();
            assertThat(Leftovers.describe(List.of(p.toHandle()))).isEqualTo("pid " + p.pid() + " (sleep)");
        } finally {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** A process is found by its session, whatever its environment; the session's leader itself is not a leftover. */
    @Test
    void aProcessInTheRunsSessionIsFoundByItsSession() throws Exception {
        Process leader = new ProcessBuilder("setsid", "/bin/sh", "-c", "sleep 30 & wait").start();
        try {
            List<ProcessHandle> found = awaitFound(leader.pid(), "no-such-marker");
            assertThat(found).hasSize(1);
            assertThat(found.getFirst().pid()).isNotEqualTo(leader.pid());
            assertThat(found.getFirst().info().command().orElse("")).endsWith("sleep");
        } finally {
            leader.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            leader.destroyForcibly();
            leader.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static List<ProcessHandle> awaitFound(long session, String marker) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5000;
        List<ProcessHandle> found = Leftovers.of(session, marker);
        while (found.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            found = Leftovers.of(session, marker);
        }
        return found;
    }
}
