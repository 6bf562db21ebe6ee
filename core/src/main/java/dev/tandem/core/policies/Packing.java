package dev.tandem.core.policies;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Occupancy;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Shared rules of the co-locating policies. */
final class Packing {
    private Packing() {}

    /** A running job that {@code job} could join: it runs alone on exactly as many GPUs as {@code job} needs. */
    record Host(Job job, List<Integer> gpus) {}

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
                boolean aNewer = a.startedAt() > b.startedAt() || (a.startedAt() == b.startedAt() && a.job().submittedAfter(b.job()));
                out.add(aNewer ? new ObservedPair(b, a) : new ObservedPair(a, b));
            }
        }
        return out;
    }

    /**
     * Gavel's packing rule (fifo-packed, gavel-packed): a known prediction whose normalised throughput sum reaches the
     * threshold.
     */
    static boolean reachesThreshold(PairPrediction pr, double threshold) {
        return pr.known() && pr.combined() >= threshold;
    }

    /** Why {@link #reachesThreshold} refuses a prediction, or empty where it does not. */
    static Optional<String> belowThreshold(PairPrediction pr, double threshold) {
        if (reachesThreshold(pr, threshold)) return Optional.empty();
        if (!pr.known()) return Optional.of("no prediction (" + pr.basis() + ")");
        return Optional.of(String.format(Locale.ROOT, "normalised throughput %.2f below Gavel's threshold %.2f", pr.combined(), threshold));
    }

    /** Appends "memory USED/CAPACITY GB" of the GPUs {@code joining} would share, to the reason being built. */
    static StringBuilder appendMemoryNote(StringBuilder b, ClusterView view, Job joining, List<Integer> gpus, SchedulerSnapshot s) {
        int g = gpus.get(0);
        long used = view.memoryCharged(g) + s.memoryRule().charged(s.memoryNeed(joining));
        b.append("memory ");
        Fixed.append(b, used / 1024.0, 1).append('/');
        return Fixed.append(b, view.capacity(g) / 1024.0, 1).append(" GB");
    }

    /**
     * A decision reason's builder, emptied: one per thread, reused. Every caller writes its reason and takes the text
     * before it writes another (a decision on a thousand busy GPUs writes hundreds of reasons, and a fresh buffer for
     * each was a tenth of what the packing policies allocated).
     */
    static StringBuilder reason() {
        StringBuilder b = REASON.get();
        b.setLength(0);
        return b;
    }

    private static final ThreadLocal<StringBuilder> REASON = ThreadLocal.withInitial(() -> new StringBuilder(128));
}
