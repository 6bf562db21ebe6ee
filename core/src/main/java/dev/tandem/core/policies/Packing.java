package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Occupancy;
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
    static List<Host> hostsFor(SchedulerSnapshot s, ClusterView view, Job job) {
        List<Host> hosts = new ArrayList<>();
        for (Job r : view.soleTenants()) {
            if (r.gpus() != job.gpus() || r.id().equals(job.id())) continue;
            List<Integer> gpus = view.gpusOf(r.id());
            if (s.crashedTogether(job, r)) continue;
            if (!view.memoryFits(job, gpus)) continue;
            hosts.add(new Host(r, gpus));
        }
        return hosts;
    }

    /** Two running jobs sharing GPUs whose speeds have both been measured; {@code newer} started later. */
    record ObservedPair(RunningJob older, RunningJob newer) {
        double combined() { return older.observedSpeed() + newer.observedSpeed(); }

        double worst() { return Math.min(older.observedSpeed(), newer.observedSpeed()); }
    }

    /** Co-located pairs with a new measurement since the last decision whose partner is measured too, each once. */
    static List<ObservedPair> observedPairs(SchedulerSnapshot s) {
        List<ObservedPair> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        Occupancy occ = s.occupancy();
        for (RunningJob a : occ.newlyObserved()) {
            if (seen.contains(a.id())) continue;
            for (String otherId : occ.jobsOn(a.gpus().get(0))) {
                if (otherId.equals(a.id()) || seen.contains(otherId)) continue;
                RunningJob b = occ.job(otherId).orElseThrow();
                if (Double.isNaN(a.observedSpeed()) || Double.isNaN(b.observedSpeed())) continue;
                seen.add(a.id());
                seen.add(b.id());
                boolean aNewer = a.startedAt() > b.startedAt() || (a.startedAt() == b.startedAt() && a.id().compareTo(b.id()) > 0);
                out.add(aNewer ? new ObservedPair(b, a) : new ObservedPair(a, b));
            }
        }
        return out;
    }

    static String memoryNote(ClusterView view, Job joining, List<Integer> gpus, SchedulerSnapshot s) {
        int g = gpus.get(0);
        long used = view.memoryCharged(g) + s.memoryRule().charged(s.memoryNeed(joining));
        return String.format(Locale.ROOT, "memory %.1f/%.1f GB", used / 1024.0, view.capacity(g) / 1024.0);
    }
}
