package dev.tandem.core.policies;

import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;

import java.util.List;
import java.util.Optional;

/** Shared step of the non-sharing policies: give queued jobs whole idle GPUs, in the order given. */
final class Exclusive {
    private Exclusive() {}

    /**
     * Starts jobs from {@code ordered} on idle GPUs. With {@code strict}, stops at the first job that does not
     * fit (head-of-line blocking, as in FIFO); otherwise skips it and tries the next (backfilling).
     */
    static void startInOrder(ClusterView view, List<PendingJob> ordered, boolean strict, String why, List<Decision> out) {
        for (PendingJob p : ordered) {
            if (!startIfIdle(view, p, why, out) && strict) return;
        }
    }

    /** Starts {@code p} on idle GPUs if there are enough; whether it started. */
    static boolean startIfIdle(ClusterView view, PendingJob p, String why, List<Decision> out) {
        Optional<List<Integer>> gpus = view.findIdle(p.job());
        if (gpus.isEmpty()) return false;
        view.place(p.job(), gpus.get());
        out.add(new Decision.Start(p.id(), gpus.get(), why + ": " + p.job().gpus() + " idle GPU(s) " + gpus.get()));
        return true;
    }
}
