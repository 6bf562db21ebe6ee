package dev.tandem.server.store;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** A job's life cycle, as stored and as the API shows it (lower-case names). */
public enum JobState {
    PENDING, PROFILING, RUNNING, PAIRED, SUSPENDED, SUCCEEDED, FAILED, CANCELLED;

    /** States in which a job waits for the policy to start it. */
    public static final Set<JobState> QUEUED = EnumSet.of(PENDING, SUSPENDED);
    /** States in which a job holds GPUs. */
    public static final Set<JobState> ON_GPU = EnumSet.of(PROFILING, RUNNING, PAIRED);
    public static final Set<JobState> TERMINAL = EnumSet.of(SUCCEEDED, FAILED, CANCELLED);
    public static final Set<JobState> NOT_TERMINAL = EnumSet.complementOf(EnumSet.of(SUCCEEDED, FAILED, CANCELLED));

    public String dbName() { return name().toLowerCase(Locale.ROOT); }

    public boolean terminal() { return TERMINAL.contains(this); }

    public static JobState parse(String s) {
        try {
            return valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown job state '" + s + "'; known: pending, profiling, running, paired, suspended, succeeded, failed, cancelled");
        }
    }
}
