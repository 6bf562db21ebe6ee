package dev.tandem.core.policy;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Everything a policy may look at: the cluster, the queue in submission order, the running jobs, the solo
 * profiles, the compatibility oracle, and what has been learned about memory from crashes.
 *
 * @param memoryEstimates raised per-signature memory needs learned from out-of-memory crashes
 * @param oomPairs        signature pairs that crashed with out-of-memory when co-located ("a|b", both orders)
 */
public record SchedulerSnapshot(double now, Cluster cluster, List<PendingJob> queue, List<RunningJob> running,
                                ProfileStore profiles, CompatibilityModel compatibility, MemoryRule memoryRule,
                                Map<WorkloadSignature, Long> memoryEstimates, Set<String> oomPairs) {

    /*
     * The lists are taken as given (no defensive copy): a world hands read-only views that stay unchanged for
     * the duration of one decide() call, which keeps large queues cheap to snapshot.
     */

    public Optional<JobProfile> profile(Job job) { return profiles.find(job.signature()); }

    /** Expected solo seconds for the given iterations, or +inf when the workload has no profile. */
    public double soloSeconds(Job job, double iterations) {
        return profile(job).map(p -> iterations / p.soloSpeed()).orElse(Double.POSITIVE_INFINITY);
    }

    /** Device memory the policy should budget for this job per GPU. */
    public long memoryNeed(Job job) {
        long est = memoryEstimates.getOrDefault(job.signature(), 0L);
        return Math.max(job.memoryMiB(), est);
    }

    public boolean crashedTogether(Job a, Job b) {
        return oomPairs.contains(oomKey(a.signature(), b.signature()));
    }

    public static String oomKey(WorkloadSignature a, WorkloadSignature b) {
        return a.label() + "|" + b.label();
    }

    /** The oracle's prediction for two jobs, unknown when either lacks a profile. */
    public PairPrediction predict(Job a, Job b) {
        Optional<JobProfile> pa = profile(a), pb = profile(b);
        if (pa.isEmpty() || pb.isEmpty()) return PairPrediction.unknown("no profile");
        return compatibility.predict(pa.get(), pb.get(), a.gpus());
    }

    /** Running jobs indexed by GPU id. */
    public Map<Integer, List<RunningJob>> occupantsByGpu() {
        Map<Integer, List<RunningJob>> m = new HashMap<>();
        for (RunningJob r : running) for (int g : r.gpus()) m.computeIfAbsent(g, x -> new ArrayList<>(2)).add(r);
        return m;
    }

    /** Whether any job is waiting, whatever the policy. */
    public boolean hasQueue() { return !queue.isEmpty(); }
}
