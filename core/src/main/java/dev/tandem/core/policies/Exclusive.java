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
            Optional<List<Integer>> gpus = view.findIdle(p.job());
            if (gpus.isEmpty()) {
                if (strict) return;
                continue;
            }
            view.place(p.job(), gpus.get());
            out.add(new Decision.Start(p.id(), gpus.get(), why + ": " + p.job().gpus() + " idle GPU(s) " + gpus.get()));
        }
    }
}
