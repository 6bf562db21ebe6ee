package dev.tandem.core.policies;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.plan.ConfigurationLp;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Occupancy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * What each workload's remaining work is worth, from the {@link ConfigurationLp} over all unfinished jobs (the
 * head of the queue and the running jobs) at the policy's own cautious predicted speeds.
 *
 * <p>Greedy pairing uses up the jobs that pair well with anything on whatever host comes first, and leaves the
 * jobs that pair with little to run alone at the end. The LP's duals price that in: a solo-second of a job that
 * can ride along with many partners is cheap, one of a job that needs a whole GPU costs a GPU-second. Adding
 * queued job q to host h then gains {@code r_q pi_q - (1 - r_h) pi_h - sigma_q} GPU-seconds per second, which
 * is zero for the pairs in the LP's optimal mix and negative for pairs that waste capacity the rest of the
 * workload will need.
 *
 * <p>Solving the LP for every scheduling round would be wasteful, so the prices are kept until the unfinished
 * work drifts by more than {@link #DRIFT} or workloads they do not price hold {@link #UNPLANNED_SHARE} of it.
 * Deterministic: the same sequence of snapshots gives the same prices.
 */
final class WorkPrices {
    /** Jobs of the queue's head the plan covers: later ones cannot start before it is re-planned anyway. */
    static final int PLAN_LIMIT = 4096;
    /** Re-plan when the unfinished work has grown or shrunk by this fraction since the last plan... */
    static final double DRIFT = 0.1;
    /**
     * ...or workloads it does not price hold this share of it. Not at the first such job: on a trace with a hundred
     * workloads and gang sizes one the plan lacks arrives at almost every check (the Philly replay solved the LP 1,261
     * times for that and 10 times for drift, half of tandem's run), and a few jobs do not move the other prices.
     */
    static final double UNPLANNED_SHARE = 0.01;
    /** No re-plan sooner than this after the last (a solve costs up to a second at scale). */
    static final double MIN_REPLAN_SECONDS = 1800;
    /** Summing up the unfinished work costs O(queue head + running), so the drift is checked at most this often. */
    static final double CHECK_SECONDS = 300;
    /**
     * Intervals within this of a period count as the period: the two worlds' clocks round differently (the daemon's
     * counts milliseconds from the epoch, the simulator's adds event times from zero), and a round that falls exactly on
     * a check must see it due in both, or their plans part (the daemon re-planned a round before the simulator in
     * {@code DaemonFidelityTest} once a new rule moved the plans' timing onto such a boundary).
     */
    static final double TIME_SLACK = 1e-3;

    /** Whether {@code period} has passed since {@code since} at {@code now}, within {@link #TIME_SLACK}. */
    static boolean due(double now, double since, double period) {
        return now - since >= period - TIME_SLACK;
    }
    /** Until the next plan, work the plan does not know is priced as needing a whole GPU: the cautious guess. */
    static final Price UNPLANNED = new Price(1.0, 0.0);

    /** Up to this many candidate pairs the LP considers them all... */
    static final int FULL_PAIRS = 2000;
    /** ...beyond, each group's best partners by combined throughput. */
    static final int PARTNERS = 12;

    private record Candidate(int a, int b, double rateA, double rateB) {
        double combined() { return rateA + rateB; }
    }

    /** A group of interchangeable jobs: same workload and gang size. */
    record Group(WorkloadSignature signature, int gpus) {
        static Group of(Job j) { return new Group(j.signature(), j.gpus()); }
    }

    /** Two groups a plan may pair, in the order the LP was given them. */
    private record PlannedPair(Group a, Group b) {}

    /** The prices of one plan; {@code slot} is the price of holding one job slot of the group (its concurrency dual). */
    record Price(double work, double slot) {}

    private final BiFunction<SchedulerSnapshot, Job[], double[]> rates;
    private Map<Group, Price> prices = Map.of();
    /** The pairs the last plan ran (for the next plan's first programme). */
    private final java.util.Set<PlannedPair> ranLastPlan = new java.util.HashSet<>();
    private double plannedWork = Double.NaN;
    private double plannedEnd = Double.NaN;
    private double plannedAt = Double.NEGATIVE_INFINITY;
    private double checkedAt = Double.NEGATIVE_INFINITY;
    private int solves;

    /**
     * @param rates for two jobs, the cautious speeds at which the policy would let them share a GPU, or null where it
     *              would not (memory, slowdown bound, gain, past crash)
     */
    WorkPrices(BiFunction<SchedulerSnapshot, Job[], double[]> rates) {
        this.rates = rates;
    }

    /**
     * The current prices, re-planned if the workload has drifted; empty when the LP cannot price it. Groups
     * that arrived since the last plan are missing until the next: see {@link #UNPLANNED}.
     */
    Map<Group, Price> prices(SchedulerSnapshot s) {
        if (!due(s.now(), checkedAt, CHECK_SECONDS) || !due(s.now(), plannedAt, MIN_REPLAN_SECONDS)) return prices;
        checkedAt = s.now();
        Tally tally = new Tally(s);
        List<PendingJob> queue = s.queue();
        for (int i = 0; i < Math.min(PLAN_LIMIT, queue.size()); i++) {
            PendingJob p = queue.get(i);
            tally.add(p.job(), p.remainingIterations(), p.attainedGpuSeconds(), p.lengthKnown());
        }
        s.occupancy().readRunning(tally);
        double total = tally.total, unplanned = 0;
        for (GroupWork w : tally.groups) if (!prices.containsKey(w.group)) unplanned += w.seconds;
        boolean drifted = Double.isNaN(plannedWork) || Math.abs(total - plannedWork) > DRIFT * plannedWork
                || unplanned > UNPLANNED_SHARE * total;
        if (drifted) {
            prices = solve(s, tally.groups);
            plannedWork = total;
            plannedAt = s.now();
        }
        return prices;
    }

    /** Seconds from now until the last plan's makespan; NaN before the first plan. */
    double horizon(double now) { return plannedEnd - now; }

    /** When the last plan was made; -infinity before the first. */
    double plannedAt() { return plannedAt; }

    /** How often the LP has been solved (for tests and benchmarks). */
    int solves() { return solves; }

    /**
     * What the plan counts for a job of unknown length: the floor of its estimate, whatever it has run. The estimate
     * grows with the service a running job receives, so counting it would make the work look as if it drifted all the
     * time and re-plan at every check (on the Philly replay without lengths, 83% of the run went into the LP); the plan
     * then prices the workloads by how many such jobs there are.
     */
    private static double unknownLength(SchedulerSnapshot s, Job j) {
        return s.profiles().orNull(j.signature()) == null ? Double.POSITIVE_INFINITY : SchedulerSnapshot.UNKNOWN_LENGTH_FLOOR_SECONDS;
    }

    /** One group's unfinished work: solo seconds, jobs, and one of them to ask the rate function about. */
    private static final class GroupWork {
        final Group group;
        final Job sample;
        double seconds;
        int jobs;
        /** The group of the same workload with another gang size, if any: the tally's look-up by signature. */
        GroupWork otherSize;

        GroupWork(Job sample) {
            this.group = Group.of(sample);
            this.sample = sample;
        }
    }

    /**
     * The unfinished work summed by group, queued and running jobs alike, in the order groups are first met. Looked up
     * by signature, then gang size, so that a job already in a group makes no key (a plan sums thousands of jobs).
     */
    private static final class Tally implements Occupancy.OccupantReader {
        private final SchedulerSnapshot s;
        private final Map<WorkloadSignature, GroupWork> bySignature = new HashMap<>();
        final List<GroupWork> groups = new ArrayList<>();
        double total;

        Tally(SchedulerSnapshot s) { this.s = s; }

        void add(Job job, double remainingIterations, double attainedGpuSeconds, boolean lengthKnown) {
            double seconds = s.knowsLength(lengthKnown) ? s.expectedSoloSeconds(job, remainingIterations, attainedGpuSeconds, lengthKnown)
                    : unknownLength(s, job);
            if (!Double.isFinite(seconds)) return; // no profile: nothing to plan with
            GroupWork w = groupOf(job);
            w.seconds += seconds;
            w.jobs++;
            total += seconds;
        }

        private GroupWork groupOf(Job job) {
            GroupWork first = bySignature.get(job.signature()), w = first;
            while (w != null && w.group.gpus() != job.gpus()) w = w.otherSize;
            if (w != null) return w;
            w = new GroupWork(job);
            if (first == null) bySignature.put(job.signature(), w);
            else {
                w.otherSize = first.otherSize;
                first.otherSize = w;
            }
            groups.add(w);
            return w;
        }

        /** A running job, as the world hands it over ({@link Occupancy#readRunning}). */
        @Override public void read(Job job, double startedAt, double remainingIterations, double attainedGpuSeconds, boolean lengthKnown) {
            add(job, remainingIterations, attainedGpuSeconds, lengthKnown);
        }
    }

    private Map<Group, Price> solve(SchedulerSnapshot s, List<GroupWork> groups) {
        solves++;
        ConfigurationLp lp = new ConfigurationLp(s.cluster().gpuCount());
        for (GroupWork g : groups) lp.addGroup(g.seconds, g.jobs, g.group.gpus());
        // every pair that may share, in the order (a, b >= a); with many workloads, each group's best partners only: the
        // LP's cost grows with its columns, and an optimal mix rarely uses a weak pair (on the bundled batch workloads all
        // pairs do leave 1% less to the bound)
        List<Candidate> all = new ArrayList<>();
        int listings = 0; // each pair is listed for both its groups, or once where a group pairs with itself
        Job[] pair = new Job[2];
        for (int a = 0; a < groups.size(); a++) {
            for (int b = a; b < groups.size(); b++) {
                if (groups.get(a).group.gpus() != groups.get(b).group.gpus()) continue;
                pair[0] = groups.get(a).sample;
                pair[1] = groups.get(b).sample;
                double[] r = rates.apply(s, pair);
                if (r == null) continue;
                all.add(new Candidate(a, b, r[0], r[1]));
                listings += b == a ? 1 : 2;
            }
        }
        // the pairs the last plan ran go into the solver's first programme: most of them run in this plan too
        List<Candidate> added = new ArrayList<>();
        for (Candidate c : listings <= 2 * FULL_PAIRS ? all : bestPartners(all, groups.size())) {
            boolean ran = !ranLastPlan.isEmpty() && ranLastPlan.contains(planned(groups, c));
            if (lp.addPair(c.a(), c.b(), c.rateA(), c.rateB(), ran)) added.add(c);
        }
        ConfigurationLp.Solution sol = lp.solve();
        ranLastPlan.clear();
        for (int i = 0; i < added.size(); i++) if (sol.pairTimes()[i] > 0) ranLastPlan.add(planned(groups, added.get(i)));
        plannedEnd = s.now() + sol.makespanS();
        if (!sol.optimal() || !sol.priced()) return Map.of();
        Map<Group, Price> out = new HashMap<>();
        for (int i = 0; i < groups.size(); i++) out.put(groups.get(i).group, new Price(sol.workPrice()[i], sol.slotPrice()[i]));
        return out;
    }

    private static PlannedPair planned(List<GroupWork> groups, Candidate c) {
        return new PlannedPair(groups.get(c.a()).group, groups.get(c.b()).group);
    }

    /**
     * Each group's {@link #PARTNERS} best pairs by combined throughput (a pair best for both of its groups once), in
     * the order of the groups, each group's by throughput.
     */
    private static List<Candidate> bestPartners(List<Candidate> all, int groups) {
        List<List<Candidate>> best = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) best.add(new ArrayList<>());
        for (Candidate c : all) {
            best.get(c.a()).add(c);
            if (c.b() != c.a()) best.get(c.b()).add(c);
        }
        java.util.Set<Candidate> chosen = new java.util.LinkedHashSet<>();
        for (List<Candidate> list : best) {
            list.sort(java.util.Comparator.comparingDouble(Candidate::combined).reversed());
            chosen.addAll(list.subList(0, Math.min(PARTNERS, list.size())));
        }
        return new ArrayList<>(chosen);
    }

    /** The cautious rates of a prediction, for {@link #WorkPrices}' rate function. */
    static double[] cautiousRates(PairPrediction pr, double uncertaintyWeight) {
        double u = Double.isNaN(pr.uncertainty()) ? 0 : uncertaintyWeight * pr.uncertainty();
        return new double[] {pr.speedA() - u, pr.speedB() - u};
    }
}
