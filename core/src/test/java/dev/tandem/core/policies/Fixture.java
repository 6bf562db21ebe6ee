package dev.tandem.core.policies;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Builds snapshots by hand for policy tests: a cluster, profiles, queued and running jobs, a table oracle. */
final class Fixture {
    final Cluster cluster;
    final ProfileStore profiles = new ProfileStore();
    final List<PendingJob> queue = new ArrayList<>();
    final List<RunningJob> running = new ArrayList<>();
    final Map<String, PairPrediction> table = new HashMap<>();
    final Set<String> oomPairs = new HashSet<>();
    /** Jobs that must run alone, and why (as a world hands them to the snapshot). */
    final Map<String, String> runsAlone = new HashMap<>();
    double now = 0;
    /** What the world learned of declared lengths; null: taken as given. */
    dev.tandem.core.runtime.LengthEstimates lengths;
    MemoryRule memory = new MemoryRule(0);

    Fixture(int nodes, int gpusPerNode, long memMiB) {
        this(Cluster.homogeneous(nodes, gpusPerNode, new GpuType("T", memMiB), 8, 65536));
    }

    Fixture(Cluster cluster) {
        this.cluster = cluster;
    }

    /** A profile named {@code model} with the given solo speed, utilisation and memory. */
    WorkloadSignature profile(String model, double util, double memMiB) {
        WorkloadSignature sig = new WorkloadSignature(model, "d", 32, false);
        profiles.put(JobProfile.basic(sig, 10, util, util / 2, memMiB));
        return sig;
    }

    Job job(String id, WorkloadSignature sig, int gpus, double soloSeconds, double submit) {
        return new Job(id, "u", submit, gpus, sig, soloSeconds * 10, Math.round(profiles.get(sig).gmemMiB()), 0);
    }

    Fixture queued(Job j) {
        queue.add(new PendingJob(j, j.submitTime(), 0, j.totalIterations(), 0));
        return this;
    }

    Fixture queued(Job j, double queuedSince, double attained) {
        queue.add(new PendingJob(j, queuedSince, attained, j.totalIterations(), 0));
        return this;
    }

    Fixture running(Job j, List<Integer> gpus, double remainingSeconds, double attained, double observed) {
        running.add(new RunningJob(j, gpus, 0, 0, remainingSeconds * 10, attained, observed));
        return this;
    }

    /** The oracle's answer for a pair of models (both orders). */
    Fixture predict(String a, String b, double sa, double sb, double sigma) {
        table.put(a + "|" + b, new PairPrediction(sa, sb, sigma, "table"));
        table.put(b + "|" + a, new PairPrediction(sb, sa, sigma, "table"));
        return this;
    }

    SchedulerSnapshot snapshot() {
        return snapshot(null);
    }

    /** With the running jobs placed in the runtime's ledger and {@code unusableGpus} marked there, as a world hands them. */
    SchedulerSnapshot snapshotWithUnusable(java.util.Set<Integer> unusableGpus) {
        return snapshot(dev.tandem.core.runtime.PlacedOccupancy.of(cluster, List.copyOf(running), unusableGpus));
    }

    private SchedulerSnapshot snapshot(dev.tandem.core.policy.Occupancy occupancy) {
        CompatibilityModel oracle = new CompatibilityModel() {
            @Override public String name() { return "table"; }

            @Override public PairPrediction predict(JobProfile a, JobProfile b) {
                return table.getOrDefault(a.signature().model() + "|" + b.signature().model(), PairPrediction.unknown("not in table"));
            }
        };
        return new SchedulerSnapshot(now, cluster, List.copyOf(queue), List.copyOf(running), profiles, oracle, memory, Map.of(), oomPairs, occupancy)
                .withRunsAlone(Map.copyOf(runsAlone)).withLengthEstimates(lengths);
    }

    static List<String> started(List<Decision> ds) {
        return ds.stream().filter(d -> d instanceof Decision.Start).map(Decision::jobId).toList();
    }

    static List<String> preempted(List<Decision> ds) {
        return ds.stream().filter(d -> d instanceof Decision.Preempt).map(Decision::jobId).toList();
    }

    static Decision.Start start(List<Decision> ds, String id) {
        return ds.stream().filter(d -> d instanceof Decision.Start && d.jobId().equals(id)).map(d -> (Decision.Start) d).findFirst().orElseThrow();
    }
}
