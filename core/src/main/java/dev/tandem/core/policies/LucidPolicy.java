package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Pairing;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Lucid-style indolent packing (Hu et al., ASPLOS'23). Each workload gets a sharing score from its solo
 * profile: 0 (tiny), 1 (medium) or 2 (jumbo); the profile's own label where the data has one (Lucid's
 * analyser output), otherwise by GPU utilisation (under 40 % tiny, under 70 % medium, else jumbo). Jobs are
 * served FIFO on idle GPUs; only when the head finds none (indolent: no sharing while GPUs are idle) is it
 * packed with a running job of the same GPU count whose score sum with it is at most 2, and whose summed
 * profiled memory stays under a memory cap (24 GB in Lucid). Among allowed partners the lowest score wins.
 */
public final class LucidPolicy implements Policy {
    /** Its hosts grouped into classes, kept across rounds. */
    private final HostClasses hostClasses = new HostClasses();
    private final long memoryCapMiB;

    public LucidPolicy() { this(24 * 1024); }

    public LucidPolicy(long memoryCapMiB) { this.memoryCapMiB = memoryCapMiB; }

    @Override public String name() { return "lucid"; }

    /** Lucid's sharing score, or 2 (never shared with anything but tiny jobs) when the profile lacks utilisation. */
    static int score(Optional<JobProfile> p) {
        if (p.isEmpty()) return 2;
        JobProfile prof = p.get();
        if (prof.shareLabel() >= 0) return prof.shareLabel();
        if (Double.isNaN(prof.gpuUtil())) return 2;
        return prof.gpuUtil() < 40 ? 0 : prof.gpuUtil() < 70 ? 1 : 2;
    }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        List<Decision> out = new ArrayList<>();
        IndolentFifoPacking.schedule(s, new ClusterView(s), name(), this::choose, hostClasses, out);
        return out;
    }

    /** Lucid's rule: scores summing to at most 2, profiled memory under the cap. */
    private boolean packs(int mine, int theirs, long memoryMiB) {
        return mine + theirs <= 2 && memoryMiB <= memoryCapMiB;
    }

    @Override public Optional<String> pairingRefusal(SchedulerSnapshot s, Job guest, Job host, List<Integer> hostGpus) {
        Optional<String> conflict = Pairing.refusal(s, guest, host, hostGpus);
        if (conflict.isPresent()) return conflict;
        int mine = score(s.profile(guest)), theirs = score(s.profile(host));
        long memory = s.memoryNeed(guest) + s.memoryNeed(host);
        if (packs(mine, theirs, memory)) return Optional.empty();
        if (mine + theirs > 2) return Optional.of("Lucid's sharing scores " + mine + " + " + theirs + " exceed 2");
        return Optional.of(String.format(Locale.ROOT, "profiled memory %.1f GB over Lucid's cap of %.1f GB", memory / 1024.0, memoryCapMiB / 1024.0));
    }

    /** The packing rule: which of the candidate hosts (one per class, in scan order) the blocked job joins. */
    Optional<IndolentFifoPacking.Choice> choose(SchedulerSnapshot s, ClusterView view, Job job, List<Packing.Host> hosts) {
        int mine = score(s.profile(job));
        Packing.Host best = null;
        int bestScore = Integer.MAX_VALUE;
        for (Packing.Host h : hosts) {
            int theirs = score(s.profile(h.job()));
            if (!packs(mine, theirs, s.memoryNeed(job) + s.memoryNeed(h.job()))) continue;
            if (theirs < bestScore) {
                best = h;
                bestScore = theirs;
            }
        }
        if (best == null) return Optional.empty();
        StringBuilder why = Packing.reason().append("lucid: paired ").append(job.id()).append(" (score ").append(mine).append(") with ")
                .append(best.job().id()).append(" (score ").append(bestScore).append("), ");
        return Optional.of(new IndolentFifoPacking.Choice(best, Packing.appendMemoryNote(why, view, job, best.gpus(), s).toString()));
    }
}
