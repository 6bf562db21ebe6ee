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
        out.add(new Decision.Start(p.id(), gpus.get(), reason(why, gpus.get())));
        return true;
    }

    /**
     * "{@code why}: N idle GPU(s) [a, b]", written out: a preemptive replay starts hundreds of thousands of jobs, and the
     * concatenation through the list's own text was a thirtieth of its time.
     */
    private static String reason(String why, List<Integer> gpus) {
        StringBuilder b = Packing.reason().append(why).append(": ").append(gpus.size()).append(" idle GPU(s) [");
        for (int i = 0; i < gpus.size(); i++) {
            if (i > 0) b.append(", ");
            b.append(gpus.get(i).intValue());
        }
        return b.append(']').toString();
    }
}
