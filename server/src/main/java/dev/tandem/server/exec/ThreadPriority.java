package dev.tandem.server.exec;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.OptionalInt;

/**
 * The operating system's priority (nice value) of the calling thread, on Linux, where each thread has its own. The
 * scheduler loop asks for a higher one than the API's threads and the jobs it runs have (Java's thread priorities do
 * nothing on Linux unless the JVM is started with flags for it): under a flood of requests on a small machine its
 * rounds otherwise wait for a core most of their time. Raising a priority needs root or CAP_SYS_NICE; without them
 * nothing changes.
 *
 * <p>A process started from a thread inherits that thread's nice value, so a thread that raised its own starts
 * processes {@linkplain #atNormal at the normal one}: the jobs, and the tools they run, get no more than they would
 * from any other thread.
 */
public final class ThreadPriority {
    /** The nice value processes start at from a thread of normal priority. */
    public static final int NORMAL = 0;
    private static final int PRIO_PROCESS = 0; // with a thread id: that thread only (Linux)

    private static final Native NATIVE = Native.load();

    private ThreadPriority() {}

    /** The calling thread's nice value, where the system tells it. */
    public static OptionalInt current() {
        if (NATIVE == null) return OptionalInt.empty();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(NATIVE.errnoLayout);
            NATIVE.errno.set(state, 0L, 0);
            int nice = (int) NATIVE.getpriority.invokeExact(state, PRIO_PROCESS, tid());
            // -1 is a nice value too: an error only if errno was set
            return nice == -1 && (int) NATIVE.errno.get(state, 0L) != 0 ? OptionalInt.empty() : OptionalInt.of(nice);
        } catch (Throwable e) {
            return OptionalInt.empty();
        }
    }

    /** Sets the calling thread's nice value (-20 highest, 19 lowest); false where not permitted or not supported. */
    public static boolean set(int nice) {
        if (NATIVE == null) return false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(NATIVE.errnoLayout);
            return (int) NATIVE.setpriority.invokeExact(state, PRIO_PROCESS, tid(), nice) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /** Something that starts processes. */
    @FunctionalInterface
    public interface Start<T, E extends Exception> {
        T run() throws E;
    }

    /**
     * Runs {@code start} with the calling thread at the {@link #NORMAL} nice value, and puts the thread's own back after:
     * the processes it starts inherit the normal priority, not a raised one.
     */
    public static <T, E extends Exception> T atNormal(Start<T, E> start) throws E {
        OptionalInt own = current();
        if (own.isEmpty() || own.getAsInt() >= NORMAL) return start.run(); // lowering our own priority needs no undoing
        set(NORMAL);
        try {
            return start.run();
        } finally {
            set(own.getAsInt());
        }
    }

    private static int tid() throws Throwable {
        return (int) NATIVE.gettid.invokeExact();
    }

    /** The C functions, or null where they are not found (not Linux, or a C library without gettid). */
    private record Native(MethodHandle gettid, MethodHandle getpriority, MethodHandle setpriority, StructLayout errnoLayout, VarHandle errno) {
        static Native load() {
            if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) return null;
            try {
                Linker linker = Linker.nativeLinker();
                var lookup = linker.defaultLookup();
                Linker.Option errno = Linker.Option.captureCallState("errno");
                StructLayout layout = Linker.Option.captureStateLayout();
                VarHandle errnoHandle = layout.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                MethodHandle gettid = linker.downcallHandle(lookup.find("gettid").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT));
                MethodHandle get = linker.downcallHandle(lookup.find("getpriority").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), errno);
                MethodHandle set = linker.downcallHandle(lookup.find("setpriority").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), errno);
                return new Native(gettid, get, set, layout, errnoHandle);
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }
    }
}
