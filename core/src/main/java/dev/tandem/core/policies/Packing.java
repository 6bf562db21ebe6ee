package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Shared rules of the co-locating policies. */
final class Packing {
    private Packing() {}

    /** A running job that {@code job} could join: it runs alone on exactly as many GPUs as {@code job} needs. */
    record Host(Job job, List<Integer> gpus) {}

    /**
     * Running jobs that {@code job} may share GPUs with: at most two jobs per GPU, a gang shares only with a
     * gang of the same size on the same GPUs, memory must fit by the snapshot's memory rule, and pairs that
     * crashed with out-of-memory before are never repeated.
     */
    static List<Host> hostsFor(SchedulerSnapshot s, ClusterView view, Job job, List<RunningJob> running) {
        List<Host> hosts = new ArrayList<>();
        for (RunningJob r : running) {
            if (r.job().gpus() != job.gpus()) continue;
            var gpus = view.soleTenancy(r.id());
            if (gpus.isEmpty()) continue;
            if (s.crashedTogether(job, r.job())) continue;
            if (!view.memoryFits(job, gpus.get())) continue;
            hosts.add(new Host(r.job(), gpus.get()));
        }
        return hosts;
    }

    /** Running jobs as they stand in the view (including ones placed earlier in this round). */
    static List<RunningJob> runningIn(SchedulerSnapshot s, ClusterView view, List<Job> placedThisRound) {
        List<RunningJob> all = new ArrayList<>(s.running());
        for (Job j : placedThisRound) all.add(new RunningJob(j, view.gpusOf(j.id()), s.now(), s.now(), j.totalIterations(), 0, Double.NaN));
        return all;
    }

    /** Two running jobs sharing GPUs whose speeds have both been measured; {@code newer} started later. */
    record ObservedPair(RunningJob older, RunningJob newer) {
        double combined() { return older.observedSpeed() + newer.observedSpeed(); }

        double worst() { return Math.min(older.observedSpeed(), newer.observedSpeed()); }
    }

    /** Every co-located pair whose speeds have been observed, each once. */
    static List<ObservedPair> observedPairs(SchedulerSnapshot s) {
        List<ObservedPair> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (List<RunningJob> onGpu : s.occupantsByGpu().values()) {
            if (onGpu.size() != 2) continue;
            RunningJob a = onGpu.get(0), b = onGpu.get(1);
            if (Double.isNaN(a.observedSpeed()) || Double.isNaN(b.observedSpeed())) continue;
            if (seen.contains(a.id()) || seen.contains(b.id())) continue; // a gang pair spans several GPUs
            seen.add(a.id());
            seen.add(b.id());
            boolean aNewer = a.startedAt() >= b.startedAt();
            out.add(aNewer ? new ObservedPair(b, a) : new ObservedPair(a, b));
        }
        return out;
    }

    static String memoryNote(ClusterView view, Job joining, List<Integer> gpus, SchedulerSnapshot s) {
        int g = gpus.get(0);
        long used = view.memoryCharged(g) + s.memoryRule().charged(s.memoryNeed(joining));
        return String.format(Locale.ROOT, "memory %.1f/%.1f GB", used / 1024.0, view.capacity(g) / 1024.0);
    }
}
