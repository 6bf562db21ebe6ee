package dev.tandem.core.policies;

import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * The reference baseline: first in, first out, one job per GPU, no backfilling. The head of the queue waits
 * until enough whole GPUs are idle, and nothing behind it starts first.
 */
public final class FifoPolicy implements Policy {
    @Override public String name() { return "fifo"; }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        List<Decision> out = new ArrayList<>();
        Exclusive.startInOrder(new ClusterView(s), s.queue(), true, "fifo head", out);
        return out;
    }
}
