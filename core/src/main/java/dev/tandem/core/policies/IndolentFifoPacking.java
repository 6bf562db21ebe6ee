package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The skeleton the peer packing policies share (Gavel's fifo_packed, Lucid, Gandiva): serve the queue in
 * order on idle GPUs; only when the head finds none is it packed onto a running job that the policy's own
 * rule picks; if the rule picks none, nothing behind the head starts (FIFO).
 */
final class IndolentFifoPacking {
    /** A policy's packing rule: which host the blocked job should join, and why. */
    interface HostRule {
        Optional<Choice> choose(SchedulerSnapshot s, ClusterView view, Job job, List<Packing.Host> hosts);
    }

    record Choice(Packing.Host host, String reason) {}

    private IndolentFifoPacking() {}

    /**
     * The rule sees one host per class of interchangeable hosts ({@link HostClasses}, the policy's own, kept across
     * rounds), in the order a scan of every lone job would meet them; a rule that keeps the first of equally good hosts
     * therefore picks what it would pick from all of them.
     */
    static void schedule(SchedulerSnapshot s, ClusterView view, String policy, HostRule rule, HostClasses classes, List<Decision> out) {
        boolean followWorld = view.untouched(); // the kept classes describe the world, not changes made before this step
        HostClasses hosts = null; // brought up to date when the first job finds no idle GPUs
        List<Packing.Host> placed = new ArrayList<>();
        for (PendingJob p : s.queue()) {
            Optional<List<Integer>> idle = view.findIdle(p.job());
            if (idle.isPresent()) {
                view.place(p.job(), idle.get());
                if (hosts != null) hosts.add(p.job(), idle.get());
                else placed.add(new Packing.Host(p.job(), idle.get()));
                out.add(new Decision.Start(p.id(), idle.get(), policy + " head: idle GPU(s) " + idle.get()));
                continue;
            }
            if (hosts == null) hosts = classes.begin(s, view, followWorld, placed);
            Optional<Choice> c = rule.choose(s, view, p.job(), hosts.candidatesFor(p.job()));
            if (c.isEmpty()) return;
            hosts.remove(c.get().host().job().id());
            view.place(p.job(), c.get().host().gpus());
            out.add(new Decision.Start(p.id(), c.get().host().gpus(), c.get().reason()));
        }
    }
}
