package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Pairing;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Gandiva-style greedy packing with introspection (Xiao et al., OSDI'18). Jobs are served FIFO on idle GPUs;
 * when the head finds none it is packed, if memory fits, onto the running job with the lowest profiled GPU
 * utilisation (Gandiva packs low-utilisation jobs). Packing is trial and error: once a pair's speeds have been
 * observed, a pair whose normalised throughput sum is below {@code unpackBelow} (1.0 = no better than taking
 * turns) is split by suspending the newer job, and that signature pair is not packed again.
 */
public final class GandivaPolicy implements Policy {
    /** Its hosts grouped into classes, kept across rounds. */
    private final HostClasses hostClasses = new HostClasses();
    private final double unpackBelow;
    /** Signature pairs observed not to pay, in both orders. */
    private final Set<List<WorkloadSignature>> badPairs = new HashSet<>();

    public GandivaPolicy() { this(1.0); }

    public GandivaPolicy(double unpackBelow) { this.unpackBelow = unpackBelow; }

    @Override public String name() { return "gandiva"; }

    @Override public boolean actsOnRunningJobs() { return true; }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        ClusterView view = new ClusterView(s);
        List<Decision> out = new ArrayList<>();
        for (Packing.ObservedPair p : Packing.observedPairs(s)) {
            if (p.combined() >= unpackBelow) continue;
            badPairs.add(List.of(p.older().job().signature(), p.newer().job().signature()));
            badPairs.add(List.of(p.newer().job().signature(), p.older().job().signature()));
            view.remove(p.newer().id());
            out.add(new Decision.Preempt(p.newer().id(), String.format(Locale.ROOT,
                    "gandiva introspection: %s with %s observed %.2f < %.2f, unpacked", p.newer().id(), p.older().id(), p.combined(), unpackBelow)));
        }
        IndolentFifoPacking.schedule(s, view, name(), this::choose, hostClasses, out);
        return out;
    }

    /** Gandiva's introspection: the two workloads shared before and did not pay. */
    private boolean observedNotToPay(Job guest, Job host) {
        return !badPairs.isEmpty() && badPairs.contains(List.of(guest.signature(), host.signature()));
    }

    @Override public Optional<String> pairingRefusal(SchedulerSnapshot s, Job guest, Job host, List<Integer> hostGpus) {
        Optional<String> conflict = Pairing.refusal(s, guest, host, hostGpus);
        if (conflict.isPresent()) return conflict;
        if (observedNotToPay(guest, host)) {
            return Optional.of(String.format(Locale.ROOT, "their workloads were observed sharing below %.2f normalised throughput and unpacked", unpackBelow));
        }
        return Optional.empty();
    }

    /** The packing rule: which of the candidate hosts (one per class, in scan order) the blocked job joins. */
    Optional<IndolentFifoPacking.Choice> choose(SchedulerSnapshot s, ClusterView view, Job job, List<Packing.Host> hosts) {
        Packing.Host best = null;
        double bestUtil = Double.POSITIVE_INFINITY;
        for (Packing.Host h : hosts) {
            if (observedNotToPay(job, h.job())) continue;
            JobProfile p = s.profiles().orNull(h.job().signature());
            double u = p == null || Double.isNaN(p.gpuUtil()) ? 100.0 : p.gpuUtil();
            if (u < bestUtil) {
                best = h;
                bestUtil = u;
            }
        }
        if (best == null) return Optional.empty();
        StringBuilder why = Packing.reason().append("gandiva: packed ").append(job.id()).append(" onto ").append(best.job().id()).append(" (GPU util ");
        Fixed.append(why, bestUtil, 0).append(" %), ");
        return Optional.of(new IndolentFifoPacking.Choice(best, Packing.appendMemoryNote(why, view, job, best.gpus(), s).toString()));
    }
}
