package dev.tandem.core.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The CPU time of the calling thread, which each world reports beside the wall time of its work (the daemon's
 * scheduling round, the simulator's whole run): unlike the wall time it leaves out the waits for a core on a busy
 * machine and the JIT's and collector's threads.
 */
public final class ThreadCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ThreadCpu() {}

    /** Nanoseconds of CPU the calling thread has used so far, or -1 where the JVM does not measure it. */
    public static long nanos() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }
}
