package dev.tandem.server.exec;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A thread's own priority on Linux, and processes it starts at the normal one. */
class ThreadPriorityTest {
    /** The nice value of a process started now from the calling thread, as the process itself reads it. */
    static int niceOfAChild() throws Exception {
        Process p = new ProcessBuilder("/bin/sh", "-c", "cut -d' ' -f19 /proc/self/stat").start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).isZero();
        return Integer.parseInt(out);
    }

    @Test
    void aRaisedThreadStartsItsProcessesAtTheNormalPriority() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "raising a priority needs root");
        AtomicReference<int[]> seen = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                OptionalInt before = ThreadPriority.current();
                boolean raised = ThreadPriority.set(-7);
                int inherited = niceOfAChild(); // what the guard prevents: a child inherits the thread's value
                int guarded = ThreadPriority.atNormal(ThreadPriorityTest::niceOfAChild);
                seen.set(new int[] {before.orElse(99), raised ? 1 : 0, ThreadPriority.current().orElse(99), inherited, guarded});
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.join();
        assertThat(failed.get()).isNull();
        int[] s = seen.get();
        assertThat(s[0]).as("a new thread's nice value").isZero();
        assertThat(s[1]).as("raised").isEqualTo(1);
        assertThat(s[2]).as("the thread's own, and again after a start at the normal one").isEqualTo(-7);
        assertThat(s[3]).as("a child started as is").isEqualTo(-7);
        assertThat(s[4]).as("a child started at the normal priority").isEqualTo(ThreadPriority.NORMAL);
        assertThat(ThreadPriority.current()).as("other threads are not touched").hasValue(0);
    }
}
