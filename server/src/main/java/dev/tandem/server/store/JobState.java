package dev.tandem.server.store;

import dev.tandem.core.runtime.Lifecycle;
import dev.tandem.core.runtime.Lifecycle.Phase;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A job's state, as stored and as the API shows it (lower-case names). Each belongs to a phase of the one
 * {@link Lifecycle} every world shares; the states add what the daemon tells apart inside a phase (a run being
 * profiled, a run sharing its GPUs; how a job ended). The state sets below are the phases', and the store refuses a
 * change of state that no step of the life cycle makes.
 */
public enum JobState {
    PENDING(Phase.WAITING), PROFILING(Phase.RUNNING), RUNNING(Phase.RUNNING), PAIRED(Phase.RUNNING), SUSPENDED(Phase.WAITING),
    SUCCEEDED(Phase.DONE), FAILED(Phase.DONE), CANCELLED(Phase.DONE);

    private final Phase phase;

    JobState(Phase phase) { this.phase = phase; }

    /** States in which a job waits for the policy to start it. */
    public static final Set<JobState> QUEUED = inPhase(Phase.WAITING);
    /** States in which a job holds GPUs. */
    public static final Set<JobState> ON_GPU = inPhase(Phase.RUNNING);
    public static final Set<JobState> TERMINAL = inPhase(Phase.DONE);
    public static final Set<JobState> NOT_TERMINAL = Collections.unmodifiableSet(EnumSet.complementOf(EnumSet.copyOf(TERMINAL)));

    public Phase phase() { return phase; }

    /** Whether some step of the life cycle moves a job in this state to {@code to}. */
    public boolean canBecome(JobState to) { return Lifecycle.allows(phase, to.phase); }

    public String dbName() { return name().toLowerCase(Locale.ROOT); }

    public boolean terminal() { return phase == Phase.DONE; }

    private static Set<JobState> inPhase(Phase p) {
        EnumSet<JobState> out = EnumSet.noneOf(JobState.class);
        for (JobState s : values()) if (s.phase == p) out.add(s);
        return Collections.unmodifiableSet(out);
    }

    public static JobState parse(String s) {
        try {
            return valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown job state '" + s + "'; known: pending, profiling, running, paired, suspended, succeeded, failed, cancelled");
        }
    }
}
