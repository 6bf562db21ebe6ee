package dev.tandem.core.runtime;

import dev.tandem.core.policy.Decision;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The life of a job, the same in every world: the phases a job passes through and the steps that move it between
 * them. The simulator moves its jobs only through {@link #after} (an illegal step is a simulator bug and fails the
 * run); the daemon's stored states each belong to a phase ({@code JobState.phase()}: pending and suspended jobs
 * wait, profiling, running and paired jobs run), its state sets are derived from the phases, and its store refuses a
 * change of state that no step makes. A policy's decision is such a step too ({@link #stepOf}), so "only a waiting
 * job is started" is said here once, for {@link DecisionRules} in both worlds.
 *
 * <p>What a world adds inside a phase stays its own: the daemon tells a run that is being profiled or shares its
 * GPUs from one that runs alone, and a job that succeeded from one that failed or was cancelled.
 */
public final class Lifecycle {
    /** Where a job is in its life. */
    public enum Phase {
        /** Known to the world, not yet submitted (a trace job before its submit time). */
        NEW,
        /** In the queue: submitted, or back after a suspension, a crash or a restart of the daemon. */
        WAITING,
        /** Holds GPUs. */
        RUNNING,
        /** Finished, failed for good or cancelled: nothing moves it again. */
        DONE
    }

    /** What moves a job, from the phases it may be taken in, to the phase it leads to. */
    public enum Step {
        /** It is submitted (or its submit time comes). */
        SUBMIT(EnumSet.of(Phase.NEW), Phase.WAITING, "only a new job is submitted"),
        /** A policy starts it on GPUs. */
        START(EnumSet.of(Phase.WAITING), Phase.RUNNING, "only a waiting job is started"),
        /** A policy suspends it to make room; it waits again. */
        SUSPEND(EnumSet.of(Phase.RUNNING), Phase.WAITING, "only a running job is suspended or moved"),
        /** It runs on with other GPUs or other neighbours (a policy moved it, a partner left, its profiling ended). */
        MOVE(EnumSet.of(Phase.RUNNING), Phase.RUNNING, "only a running job is suspended or moved"),
        /** Its run ended before its work did (out of memory, a crash to retry, a failed start, a daemon restart). */
        REQUEUE(EnumSet.of(Phase.RUNNING), Phase.WAITING, "only a running job is requeued"),
        /** Its work is done. */
        FINISH(EnumSet.of(Phase.RUNNING), Phase.DONE, "only a running job finishes"),
        /** Given up: out of attempts, past its time limit, or a job it depends on failed. */
        FAIL(EnumSet.of(Phase.WAITING, Phase.RUNNING), Phase.DONE, "a job that is done stays done"),
        /** Its owner or an admin cancelled it. */
        CANCEL(EnumSet.of(Phase.WAITING, Phase.RUNNING), Phase.DONE, "a job that is done stays done");

        private final Set<Phase> from;
        private final Phase to;
        private final String rule;

        Step(Set<Phase> from, Phase to, String rule) {
            this.from = from;
            this.to = to;
            this.rule = rule;
        }

        public Phase to() { return to; }

        public boolean from(Phase p) { return from.contains(p); }

        /** The rule a refusal quotes, e.g. "only a waiting job is started". */
        public String rule() { return rule; }
    }

    private Lifecycle() {}

    /** Why {@code step} cannot move a job in phase {@code from} ("is running: only a waiting job is started"), or empty when it can. */
    public static Optional<String> refusal(Phase from, Step step) {
        if (step.from(from)) return Optional.empty();
        String is = switch (from) {
            case NEW -> "is not submitted yet";
            case WAITING -> "is waiting";
            case RUNNING -> "is running";
            case DONE -> "is done";
        };
        return Optional.of(is + ": " + step.rule());
    }

    /** The phase {@code step} leads to from {@code from}; an {@link IllegalStateException} if it cannot be taken there. */
    public static Phase after(Phase from, Step step) {
        refusal(from, step).ifPresent(why -> { throw new IllegalStateException("job " + why); });
        return step.to();
    }

    /** Whether some step moves a job from {@code from} to {@code to}: the check of a world that stores states, not steps. */
    public static boolean allows(Phase from, Phase to) {
        for (Step s : Step.values()) if (s.from(from) && s.to() == to) return true;
        return false;
    }

    /** The step a policy's decision to start, suspend or move a job asks of it (a hold, {@link Decision.Reserve}, moves nothing). */
    public static Step stepOf(Decision d) {
        return switch (d) {
            case Decision.Start s -> Step.START;
            case Decision.Preempt p -> Step.SUSPEND;
            case Decision.Migrate m -> Step.MOVE;
            case Decision.Reserve r -> throw new IllegalArgumentException("a hold moves no job: " + r);
        };
    }
}
