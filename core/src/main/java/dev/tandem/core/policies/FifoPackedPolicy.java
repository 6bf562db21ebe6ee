package dev.tandem.core.policies;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Pairing;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Gavel's FIFO with space sharing ("fifo_packed", Narayanan et al., OSDI'20): jobs are served in arrival
 * order on whole GPUs; when the head job finds no idle GPUs it may be packed onto GPUs of a running job if
 * the pair's normalised throughput sum (each job's co-located throughput over its solo throughput, as the
 * compatibility oracle gives it) is at least a threshold, 1.5 in Gavel. The partner with the highest sum is
 * chosen. If the head cannot be placed, nothing behind it starts (FIFO).
 */
public final class FifoPackedPolicy implements Policy {
    /** Its hosts grouped into classes, kept across rounds. */
    private final HostClasses hostClasses = new HostClasses();
    private final double threshold;

    public FifoPackedPolicy() { this(1.5); }

    public FifoPackedPolicy(double threshold) { this.threshold = threshold; }

    @Override public String name() { return "fifo-packed"; }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        List<Decision> out = new ArrayList<>();
        IndolentFifoPacking.schedule(s, new ClusterView(s), name(), this::choose, hostClasses, out);
        return out;
    }

    @Override public Optional<String> pairingRefusal(SchedulerSnapshot s, Job guest, Job host, List<Integer> hostGpus) {
        Optional<String> conflict = Pairing.refusal(s, guest, host, hostGpus);
        if (conflict.isPresent()) return conflict;
        return Packing.belowThreshold(s.predict(guest, host), threshold);
    }

    /** The packing rule: which of the candidate hosts (one per class, in scan order) the blocked job joins. */
    Optional<IndolentFifoPacking.Choice> choose(SchedulerSnapshot s, ClusterView view, Job job, List<Packing.Host> hosts) {
        Packing.Host best = null;
        PairPrediction bestPred = null;
        for (Packing.Host h : hosts) {
            PairPrediction pr = s.predict(job, h.job());
            if (!Packing.reachesThreshold(pr, threshold)) continue;
            if (bestPred == null || pr.combined() > bestPred.combined()) {
                best = h;
                bestPred = pr;
            }
        }
        if (best == null) return Optional.empty();
        StringBuilder why = Packing.reason().append("fifo-packed: paired ").append(job.id()).append(" with ").append(best.job().id())
                .append(", normalised throughput ");
        Fixed.append(why, bestPred.combined(), 2).append(" >= ");
        Fixed.append(why, threshold, 2).append(", ");
        return Optional.of(new IndolentFifoPacking.Choice(best, Packing.appendMemoryNote(why, view, job, best.gpus(), s).toString()));
    }
}
