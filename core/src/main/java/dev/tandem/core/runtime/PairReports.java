package dev.tandem.core.runtime;

import java.util.function.BiConsumer;

/**
 * When a co-located pair's measured speeds go to the online model, the same in every world: once per placement of the
 * two, as soon as both have run beside each other long enough to be measured, whichever of them was measured last
 * (the simulator notices it at the event that measures the second, the daemon at the round that sees both measured).
 * A pair reported twice would move the model's smoothing two steps towards one measurement; a pair reported per
 * shared GPU, four for a 4-GPU gang.
 */
public final class PairReports {
    /** What a world tells of one of its running jobs (or runs), whose flag it keeps and clears when the job moves. */
    public interface Side<R> {
        /** Its speed beside its current neighbours is measured, and it stays where it is (a run being stopped does not). */
        boolean measured(R job);

        /** The pair of its current placement was reported. */
        boolean reported(R job);

        void markReported(R job);
    }

    private PairReports() {}

    /**
     * Hands {@code a} and {@code b}, two jobs sharing GPUs, to {@code report} if both are measured and the pair of
     * neither's current placement was reported yet; then marks both. True if it reported them.
     */
    public static <R> boolean report(R a, R b, Side<R> side, BiConsumer<R, R> report) {
        if (a == b || !side.measured(a) || !side.measured(b) || side.reported(a) || side.reported(b)) return false;
        report.accept(a, b);
        side.markReported(a);
        side.markReported(b);
        return true;
    }
}
