package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.QueueJournal;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.RunningJournal;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SRTF and Tiresias keep their ranking of the queue, and Tiresias of the running jobs, across rounds ({@link RankedQueue},
 * {@link RankedRunning}): every round must decide exactly what the rule as it was (rank every queued and running job
 * on a heap, every round, kept here as the reference) decides, with the world's journals and without them, through
 * arrivals, starts, completions, suspensions with attained service, service growing while jobs run (Tiresias bins
 * changing mid-run), priorities, equal keys and Tiresias' starvation promotions.
 */
class PreemptiveRankTest {
    @Test void srtfDecidesAsRankingEveryJobEveryRound() {
        for (long seed = 1; seed <= 3; seed++) {
            compare(seed, SrtfPolicy::new, () -> new Reference(Rule.SRTF), true);
            compare(seed, SrtfPolicy::new, () -> new Reference(Rule.SRTF), false);
        }
    }

    @Test void sjfDecidesAsSortingTheQueueEveryRound() {
        for (long seed = 1; seed <= 3; seed++) {
            compare(seed, SjfPolicy::new, () -> new Reference(Rule.SJF), true);
            compare(seed, SjfPolicy::new, () -> new Reference(Rule.SJF), false);
        }
    }

    @Test void tiresiasDecidesAsRankingEveryJobEveryRound() {
        int promoted = 0;
        for (long seed = 1; seed <= 3; seed++) {
            promoted += compare(seed, TiresiasPolicy::new, () -> new Reference(Rule.TIRESIAS), true);
            compare(seed, TiresiasPolicy::new, () -> new Reference(Rule.TIRESIAS), false);
        }
        assertTrue(promoted > 20, "starvation promotions seen: " + promoted);
    }

    /**
     * A third of the jobs of unknown length, shown as needing as long as they have run, which grows while they run:
     * the world names them in the running journal every round, also at rounds the policy is not asked, so a policy
     * reads jobs keyed again before the starts and stops that follow them, and must restore its order before it looks
     * one of those up (by binary search). That the keys are brought up at all is {@code JournalsTest}'s, on the
     * simulator's workloads without lengths.
     */
    @Test void srtfAndTiresiasFollowJobsOfUnknownLengthAsRankingEveryJobEveryRound() {
        for (long seed = 1; seed <= 3; seed++) {
            compare(seed, SrtfPolicy::new, () -> new Reference(Rule.SRTF), true, 1 << 12, true);
            compare(seed, TiresiasPolicy::new, () -> new Reference(Rule.TIRESIAS), true, 1 << 12, true);
            compare(seed, SjfPolicy::new, () -> new Reference(Rule.SJF), true, 1 << 12, true);
        }
    }

    /** Journals too short to hold a round's changes: the policies fall behind, rebuild, and still decide the same. */
    @Test void policiesThatFallBehindTheJournalsRebuildAndDecideTheSame() {
        for (long seed = 1; seed <= 2; seed++) {
            compare(seed, TiresiasPolicy::new, () -> new Reference(Rule.TIRESIAS), true, 6);
            compare(seed, SrtfPolicy::new, () -> new Reference(Rule.SRTF), true, 6);
            compare(seed, SjfPolicy::new, () -> new Reference(Rule.SJF), true, 6);
        }
    }

    /** Runs a random world for both policies side by side; returns how many starts the reference made for promoted jobs. */
    private static int compare(long seed, java.util.function.Supplier<Policy> incremental, java.util.function.Supplier<Reference> reference,
                               boolean journal) {
        return compare(seed, incremental, reference, journal, 1 << 12);
    }

    private static int compare(long seed, java.util.function.Supplier<Policy> incremental, java.util.function.Supplier<Reference> reference,
                               boolean journal, int journalCapacity) {
        return compare(seed, incremental, reference, journal, journalCapacity, false);
    }

    /** @param unknownLengths every third job is of unknown length */
    private static int compare(long seed, java.util.function.Supplier<Policy> incremental, java.util.function.Supplier<Reference> reference,
                               boolean journal, int journalCapacity, boolean unknownLengths) {
        Random rnd = new Random(seed);
        Fixture f = new Fixture(4, 8, 80_000);
        WorkloadSignature[] sigs = {f.profile("a", 0.3, 1000), f.profile("b", 0.5, 1000), f.profile("c", 0.8, 1000)};
        Comparator<PendingJob> order = Comparator.comparingDouble((PendingJob p) -> p.job().submitTime()).thenComparing(p -> Integer.parseInt(p.id()));
        QueueJournal log = new QueueJournal(order, journalCapacity);
        RunningJournal started = new RunningJournal(journalCapacity);
        List<PendingJob> queue = new ArrayList<>();
        List<Run> running = new ArrayList<>();
        Policy policy = incremental.get();
        Reference ref = reference.get();
        int nextId = 0, compared = 0;
        double now = 0;
        for (int round = 0; round < 500; round++) {
            now += 30 + rnd.nextInt(900);
            for (int k = rnd.nextInt(rnd.nextInt(10) == 0 ? 40 : 4); k > 0; k--) {
                double solo = 600 * (1 + rnd.nextInt(6));
                Job j = new Job(Integer.toString(nextId++), "u", now, List.of(1, 1, 2, 4).get(rnd.nextInt(4)), sigs[rnd.nextInt(3)], solo * 10, 1000,
                        rnd.nextInt(15) == 0 ? 3 : 0);
                boolean unknown = unknownLengths && nextId % 3 == 0;
                enter(queue, log, unknown ? new PendingJob(j, now, 0, SchedulerSnapshot.unknownLengthIterations(0, j.gpus(), SPEED), 0, false, 0)
                        : new PendingJob(j, now, 0, j.totalIterations(), 0));
            }
            // running jobs end or are suspended (back to the queue with what they attained); queued jobs start on free GPUs
            for (int k = running.size() - 1; k >= 0; k--) {
                RunningJob r = running.get(k).at(now);
                int what = rnd.nextInt(8);
                if (what == 0) {
                    running.remove(k);
                    started.stopped(r.job());
                } else if (what == 1) {
                    running.remove(k);
                    started.stopped(r.job());
                    enter(queue, log, new PendingJob(r.job(), now, r.attainedGpuSeconds(), r.remainingIterations(), 1, r.lengthKnown(), 0));
                }
            }
            Set<Integer> busy = new HashSet<>();
            for (Run r : running) busy.addAll(r.gpus());
            for (int k = 0; k < 3 && !queue.isEmpty(); k++) {
                PendingJob p = queue.get(rnd.nextInt(queue.size()));
                List<Integer> free = new ArrayList<>();
                for (int g = 0; g < f.cluster.gpuCount() && free.size() < p.job().gpus(); g++) if (!busy.contains(g)) free.add(g);
                if (free.size() < p.job().gpus()) break;
                queue.remove(p);
                log.left(p);
                busy.addAll(free);
                running.add(new Run(p.job(), free, now, p.remainingIterations(), p.attainedGpuSeconds() + rnd.nextInt(2000), !p.lengthKnown()));
                started.started(p.job());
            }
            List<RunningJob> views = new ArrayList<>();
            for (Run r : running) views.add(r.at(now));
            for (Run r : running) if (r.unknown()) started.reshown(r.job()); // what such a job shows grew: every round
            if (rnd.nextInt(6) == 0) continue; // a round the policy is not asked
            f.now = now;
            SchedulerSnapshot base = f.snapshot();
            SchedulerSnapshot a = new SchedulerSnapshot(now, f.cluster, Collections.unmodifiableList(queue), List.copyOf(views), f.profiles,
                    base.compatibility(), base.memoryRule(), Map.of(), Set.of());
            if (journal) a.withQueueJournal(log).withRunningJournal(started);
            SchedulerSnapshot b = new SchedulerSnapshot(now, f.cluster, Collections.unmodifiableList(queue), List.copyOf(views), f.profiles,
                    base.compatibility(), base.memoryRule(), Map.of(), Set.of());
            assertEquals(ref.decide(b), policy.decide(a), policy.name() + " seed " + seed + " round " + round + " journal " + journal);
            compared++;
        }
        assertTrue(compared > 350, "rounds compared: " + compared);
        return ref.promotions;
    }

    /** The solo speed of the fixture's profiles, iterations per second. */
    private static final double SPEED = 10;

    /**
     * A running job: its service grows with its GPUs and its remaining work falls as time passes; of unknown length, it
     * is shown as needing as long as it has run, which grows.
     */
    private record Run(Job job, List<Integer> gpus, double startedAt, double remainingAtStart, double attainedAtStart, boolean unknown) {
        RunningJob at(double now) {
            double ran = now - startedAt, attained = attainedAtStart + job.gpus() * ran;
            if (unknown) {
                return new RunningJob(job, gpus, startedAt, startedAt, SchedulerSnapshot.unknownLengthIterations(attained, job.gpus(), SPEED), attained,
                        Double.NaN, false);
            }
            return new RunningJob(job, gpus, startedAt, startedAt, Math.max(1, remainingAtStart - 5 * ran), attained, Double.NaN);
        }
    }

    private static void enter(List<PendingJob> queue, QueueJournal log, PendingJob p) {
        Comparator<PendingJob> order = log.order();
        int at = Collections.binarySearch(queue, p, order);
        queue.add(-at - 1, p);
        log.entered(p);
    }

    private enum Rule { SJF, SRTF, TIRESIAS }

    /** SJF's, SRTF's and Tiresias' ranking as it was: every job's key, every round, off a heap. */
    private static final class Reference {
        private final Rule rule;
        private final boolean tiresias;
        private final double[] thresholds = {3250, 7200};
        private final Map<String, Double> serviceAtPromotion = new HashMap<>();
        int promotions;

        Reference(Rule rule) {
            this.rule = rule;
            this.tiresias = rule == Rule.TIRESIAS;
        }

        private record Candidate(Job job, double key, PendingJob queued) {}

        private int queueOf(double attained) {
            int q = 0;
            while (q < thresholds.length && attained >= thresholds[q] - 1e-3) q++;
            return q;
        }

        private double service(String id, double attained) {
            Double base = serviceAtPromotion.get(id);
            return base == null ? attained : attained - base;
        }

        List<Decision> decide(SchedulerSnapshot s) {
            if (rule == Rule.SJF) return sjf(s);
            if (s.queue().isEmpty()) return List.of();
            List<Candidate> c = new ArrayList<>();
            for (RunningJob r : s.running()) {
                c.add(new Candidate(r.job(), tiresias ? 2.0 * queueOf(service(r.id(), r.attainedGpuSeconds())) : s.soloSeconds(r.job(), r.remainingIterations()), null));
            }
            Set<String> promotedNow = new HashSet<>();
            for (PendingJob p : s.queue()) {
                if (!tiresias) {
                    c.add(new Candidate(p.job(), s.soloSeconds(p.job(), p.remainingIterations()), p));
                    continue;
                }
                double ran = p.attainedGpuSeconds() / p.job().gpus();
                boolean starving = ran > 0 && s.now() - p.queuedSince() > 8.0 * ran - 1e-3;
                if (starving) {
                    serviceAtPromotion.put(p.id(), p.attainedGpuSeconds());
                    promotedNow.add(p.id());
                }
                c.add(new Candidate(p.job(), 2.0 * (starving ? 0 : queueOf(service(p.id(), p.attainedGpuSeconds()))) + 1, p));
            }
            Comparator<Integer> rank = Comparator.comparingInt((Integer i) -> -c.get(i).job().priority()).thenComparingDouble(i -> c.get(i).key())
                    .thenComparingDouble(i -> c.get(i).job().submitTime()).thenComparingInt(i -> i);
            PriorityQueue<Integer> heap = new PriorityQueue<>(rank);
            for (int i = 0; i < c.size(); i++) heap.add(i);
            int capacity = s.cluster().gpuCount();
            Set<String> admitted = new HashSet<>();
            List<PendingJob> toStart = new ArrayList<>();
            while (capacity > 0 && !heap.isEmpty()) {
                Candidate x = c.get(heap.poll());
                if (x.job().gpus() <= capacity) {
                    admitted.add(x.job().id());
                    if (x.queued() != null) toStart.add(x.queued());
                    capacity -= x.job().gpus();
                }
            }
            String name = tiresias ? "tiresias" : "srtf";
            List<Decision> out = new ArrayList<>();
            ClusterView view = new ClusterView(s);
            for (RunningJob r : s.running()) {
                if (!admitted.contains(r.id())) {
                    view.remove(r.id());
                    out.add(new Decision.Preempt(r.id(), name + ": outranked by a queued job"));
                }
            }
            Exclusive.startInOrder(view, toStart, false, name + " rank", out);
            for (Decision d : out) if (d instanceof Decision.Start && promotedNow.contains(d.jobId())) promotions++;
            return out;
        }

        /** Shortest expected duration first, no preemption: the queue off a heap every round. */
        private static List<Decision> sjf(SchedulerSnapshot s) {
            ClusterView view = new ClusterView(s);
            if (view.freeCount() == 0) return List.of();
            List<PendingJob> queue = s.queue();
            Comparator<Integer> byOrder = Comparator.comparingInt((Integer i) -> -queue.get(i).job().priority())
                    .thenComparingDouble(i -> s.soloSeconds(queue.get(i).job(), queue.get(i).remainingIterations()))
                    .thenComparingDouble(i -> queue.get(i).job().submitTime()).thenComparingInt(i -> i);
            PriorityQueue<Integer> order = new PriorityQueue<>(byOrder);
            for (int i = 0; i < queue.size(); i++) order.add(i);
            List<Decision> out = new ArrayList<>();
            while (!order.isEmpty() && view.freeCount() > 0) Exclusive.startIfIdle(view, queue.get(order.poll()), "sjf shortest", out);
            return out;
        }
    }
}
