package dev.tandem.core.plan;

import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Presolvers;
import org.ojalgo.optimisation.Variable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The linear programme over GPU configurations that both the makespan lower bound (with ground-truth speeds)
 * and tandem's pairing plan (with predicted speeds) solve, with ojAlgo.
 *
 * <p>Work comes in groups of interchangeable jobs: group s has n_s jobs, W_s solo-seconds of work, and each of
 * its jobs holds g_s GPUs. A configuration c runs one job of a group alone, or a pair of jobs (of two groups of
 * the same gang size, or two of one group); it advances group s at rate r_s(c) (speed relative to solo). With
 * t_c the GPU-set-time spent in c and M the makespan:
 * <pre>
 *   minimise M
 *   sum_c r_s(c) t_c       >= W_s          every group's work gets done            (dual: work price pi_s)
 *   sum_c g(c) t_c         <= G M          the cluster's G GPUs over the makespan  (dual: GPU price mu)
 *   sum_c jobs_s(c) t_c    <= n_s M        a job is in one configuration at a time (dual: slot price sigma_s)
 *   t_c >= 0
 * </pre>
 * The duals are what a policy needs online: pi_s / mu is what one solo-second of group s is worth in GPU-seconds
 * when the whole remaining workload is done as well as possible. Work that pairs well with much else is cheap
 * (it can ride along), work that pairs with little costs a whole GPU; a configuration in the optimal mix has
 * reduced cost zero, every other one a negative reduced cost that says how much it wastes.
 *
 * <p>Solved by column generation: the solo configurations, the pairs the caller expects in the optimum (the last
 * plan's) and each group's best pair first, then, as long as the duals say some pair left out would shorten the
 * makespan (a positive reduced cost), the most profitable of those are added and the smaller programme solved again.
 * An optimal mix uses few of the pairs, and the cost of a solve grows with its columns: on
 * {@code PolicyDecisionBenchmark}'s world (865 pairs) a fresh tandem's decision, which plans, took 3.7 MB and 5-7 ms
 * with the whole programme at once and takes 2.1 MB and about 4 ms so; the Philly replay's plans a median of 13.4 ms
 * against 5.3 ms. Each programme is an ojAlgo model: its {@code LinearSolver} fed the rows directly took a third of
 * the time and memory on small programmes, but its primal tableau chose other optimal prices, which left tandem 0.4 h
 * (0.7%) longer on average over the demo's 16 seeds without exact lengths.
 */
public final class ConfigurationLp {
    static {
        // ojAlgo prints a hardware-profile notice on first use unless told not to
        System.setProperty("shut.up.ojAlgo", "true");
        // Of ojAlgo's presolvers (a setting of its whole JVM; this is tandem's only use of it) only the one that turns rows
        // of one or two variables into bounds: without it the prices of the Philly replay's larger plans moved in their
        // last bits, and so did its result. The others look for redundant rows and for integers: the only redundant rows
        // these programmes can have, the work rows of groups with no work left, are left out when the model is built
        // (solve), and there are no integers. Without them the plans of every bundled workload and trace came out the same
        // to the bit, while loading and running them took about a third of the solves' time in a cold run.
        ExpressionsBasedModel.clearPresolvers();
        ExpressionsBasedModel.addPresolver(Presolvers.ZERO_ONE_TWO);
    }

    /**
     * A pair left out enters when its reduced cost is above this share of what its GPUs cost (below it is the solver's
     * rounding); of at least {@link #MIN_ENTER_COST}, for a programme whose GPUs are not its bottleneck (a GPU price of 0).
     */
    private static final double ENTER_TOLERANCE = 1e-9, MIN_ENTER_COST = 1e-3;

    private record Group(double work, int count, int gpus) {}

    private record Pair(int a, int b, double rateA, double rateB, boolean startWith) {
        double combined() { return rateA + rateB; }
    }

    private final int clusterGpus;
    private final List<Group> groups = new ArrayList<>();
    private final List<Pair> pairs = new ArrayList<>();

    /**
     * Starts loading and initialising the solver's classes on a background thread, for a command that is about to
     * solve its first programme after other start-up work. ojAlgo's static initialisers (number contexts, constants
     * to high precision, presolvers) took about a tenth of tandem's demo run; done while the data loads, on a core
     * that would otherwise idle, they are out of the way when the first plan is needed. The thread solves a
     * three-configuration programme and ends; nothing it computes is kept. (A programme the size of the demo's
     * first plan, to compile the solver's loops as well, made no difference.)
     */
    public static void prepareInBackground() {
        Thread.ofPlatform().daemon().name("lp-prepare").start(() -> {
            ConfigurationLp lp = new ConfigurationLp(2);
            lp.addGroup(3600, 2, 1);
            lp.addGroup(1800, 1, 1);
            lp.addPair(0, 1, 0.8, 0.7);
            lp.solve();
        });
    }

    /** @param clusterGpus G, the GPUs the cluster has */
    public ConfigurationLp(int clusterGpus) {
        if (clusterGpus < 1) throw new IllegalArgumentException("a cluster needs at least one GPU");
        this.clusterGpus = clusterGpus;
    }

    /** Adds a group of {@code count} jobs of {@code gpus} GPUs each with {@code workSeconds} solo-seconds in all; returns its index. */
    public int addGroup(double workSeconds, int count, int gpus) {
        if (count < 1 || gpus < 1 || workSeconds < 0 || Double.isNaN(workSeconds)) {
            throw new IllegalArgumentException("bad group: work " + workSeconds + " s, " + count + " jobs, " + gpus + " GPUs");
        }
        groups.add(new Group(workSeconds, count, gpus));
        return groups.size() - 1;
    }

    /**
     * Allows groups a and b (a == b: two jobs of one group) to share GPUs at the given rates. Pairs that gain
     * nothing over running the two jobs in turn (rates summing to at most 1) cannot improve the optimum and are
     * left out, as are pairs of different gang sizes. Returns whether the pair was added.
     */
    public boolean addPair(int a, int b, double rateA, double rateB) {
        return addPair(a, b, rateA, rateB, false);
    }

    /**
     * As {@link #addPair(int, int, double, double)}; {@code startWith}: the pair goes into the first programme the
     * column generation solves (a pair the caller expects in the optimum, such as one the last plan ran).
     */
    public boolean addPair(int a, int b, double rateA, double rateB, boolean startWith) {
        Group ga = groups.get(a), gb = groups.get(b);
        if (ga.gpus != gb.gpus || (a == b && ga.count < 2)) return false;
        if (!(rateA >= 0 && rateB >= 0) || rateA + rateB <= 1.0) return false;
        pairs.add(new Pair(a, b, rateA, rateB, startWith));
        return true;
    }

    /** Solo plus pair configurations so far. */
    public int configurations() { return groups.size() + pairs.size(); }

    /**
     * The optimum. Prices are normalised by the GPU price mu (so a GPU-second is worth 1); when mu is zero
     * (the makespan is set by a few long jobs, not by the GPUs) or the solver fails, {@link Solution#priced()}
     * is false and the prices are NaN.
     *
     * @param pairTimes per pair added (in order), the GPU-set-seconds the optimum runs it (0 for a pair the column
     *                  generation never needed)
     */
    public record Solution(String state, double makespanS, double[] workPrice, double[] slotPrice, double[] pairTimes, int configurations) {
        public boolean optimal() { return !Double.isNaN(makespanS); }

        public boolean priced() { return workPrice.length == 0 || !Double.isNaN(workPrice[0]); }
    }

    public Solution solve() {
        int n = groups.size();
        double[] work = new double[n], slot = new double[n], times = new double[pairs.size()];
        Arrays.fill(work, Double.NaN);
        Arrays.fill(slot, Double.NaN);
        if (n == 0) {
            Arrays.fill(times, Double.NaN);
            return new Solution("EMPTY", 0, work, slot, times, 0);
        }
        Columns columns = startingPairs();
        while (true) {
            Restricted r = new Restricted(columns);
            if (!r.solved()) {
                Arrays.fill(times, Double.NaN);
                return new Solution(r.state, Double.NaN, work, slot, times, configurations());
            }
            if (addEntering(r, columns)) continue;
            for (int k = 0; k < columns.size; k++) times[columns.pairs[k]] = r.pairTimes[k];
            if (r.mu > 1e-12) {
                for (int s = 0; s < n; s++) {
                    work[s] = r.workDual[s] / r.mu;
                    slot[s] = r.slotDual[s] / r.mu;
                }
            }
            return new Solution(r.state, r.makespan, work, slot, times, configurations());
        }
    }

    /** The pairs in the programme being solved, in the order they entered, and which ones are in. */
    private static final class Columns {
        int[] pairs;
        int size;
        final boolean[] in;

        Columns(int pairCount) {
            pairs = new int[Math.min(pairCount, 64)];
            in = new boolean[pairCount];
        }

        void add(int pair) {
            if (size == pairs.length) pairs = Arrays.copyOf(pairs, Math.max(8, 2 * size));
            pairs[size++] = pair;
            in[pair] = true;
        }
    }

    /**
     * The pairs the first programme holds: those the caller marked (the pairs the last plan ran, which mostly stay in the
     * optimum), then each group's best pair by combined throughput (the first such pair where several are as good).
     */
    private Columns startingPairs() {
        Columns out = new Columns(pairs.size());
        for (int i = 0; i < pairs.size(); i++) if (pairs.get(i).startWith()) out.add(i);
        int[] best = new int[groups.size()];
        Arrays.fill(best, -1);
        for (int i = 0; i < pairs.size(); i++) {
            Pair p = pairs.get(i);
            if (best[p.a()] < 0 || pairs.get(best[p.a()]).combined() < p.combined()) best[p.a()] = i;
            if (best[p.b()] < 0 || pairs.get(best[p.b()]).combined() < p.combined()) best[p.b()] = i;
        }
        for (int i : best) if (i >= 0 && !out.in[i]) out.add(i);
        return out;
    }

    /**
     * Adds the pairs left out whose reduced cost under {@code r}'s duals is positive, the most profitable first and at
     * most twice as many as there are groups (at least 8) per round; returns whether any was added (if not, {@code r} is
     * optimal for the whole programme). Ties go to the pair added first. (Fewer per round made more rounds, more made
     * larger programmes: both took longer on the Philly replay, measured with ojAlgo's {@code LinearSolver}.)
     */
    private boolean addEntering(Restricted r, Columns columns) {
        int limit = Math.max(8, 2 * groups.size());
        double[] profit = new double[pairs.size()];
        int candidates = 0;
        for (int i = 0; i < pairs.size(); i++) {
            profit[i] = Double.NEGATIVE_INFINITY;
            if (columns.in[i]) continue;
            Pair pair = pairs.get(i);
            int a = pair.a(), b = pair.b();
            double cost = r.mu * groups.get(a).gpus;
            double p = a == b ? r.workDual[a] * pair.combined() - 2 * r.slotDual[a]
                    : r.workDual[a] * pair.rateA() + r.workDual[b] * pair.rateB() - r.slotDual[a] - r.slotDual[b];
            p -= cost;
            if (p > ENTER_TOLERANCE * Math.max(cost, MIN_ENTER_COST)) {
                profit[i] = p;
                candidates++;
            }
        }
        int added = 0;
        for (; added < Math.min(limit, candidates); added++) {
            int best = -1;
            for (int i = 0; i < profit.length; i++) if (profit[i] > Double.NEGATIVE_INFINITY && (best < 0 || profit[i] > profit[best])) best = i;
            columns.add(best);
            profit[best] = Double.NEGATIVE_INFINITY;
        }
        return added > 0;
    }

    /** The programme over the solo configurations and the listed pairs, solved: the optimum and its duals. */
    private final class Restricted {
        final String state;
        /** Each listed pair's time; null when not solved. */
        final double[] pairTimes;
        final double makespan, mu;
        final double[] workDual, slotDual;

        Restricted(Columns columns) {
            int n = groups.size();
            ExpressionsBasedModel model = new ExpressionsBasedModel();
            Variable m = model.addVariable("M").lower(0).weight(1);
            Expression gpus = model.addExpression("gpus").upper(0);
            gpus.set(m, -clusterGpus);
            Expression[] workRows = new Expression[n], slotRows = new Expression[n];
            for (int s = 0; s < n; s++) {
                Group g = groups.get(s);
                // a group with no work left has no work row, and so no work price: the row could not bind (ojAlgo's
                // presolve dropped it when it ran; without it the solver priced such a row at an arbitrary value)
                workRows[s] = g.work > 0 ? model.addExpression("work" + s).lower(g.work) : null;
                slotRows[s] = model.addExpression("slots" + s).upper(0);
                slotRows[s].set(m, -g.count);
                Variable solo = model.addVariable("solo" + s).lower(0);
                add(workRows[s], solo, 1.0);
                slotRows[s].set(solo, 1.0);
                gpus.set(solo, g.gpus);
            }
            Variable[] pairVars = new Variable[columns.size];
            for (int k = 0; k < columns.size; k++) {
                int i = columns.pairs[k];
                Pair p = pairs.get(i);
                int a = p.a(), b = p.b();
                Variable t = model.addVariable("pair" + i).lower(0);
                pairVars[k] = t;
                gpus.set(t, groups.get(a).gpus);
                if (a == b) {
                    add(workRows[a], t, p.combined());
                    slotRows[a].set(t, 2.0);
                } else {
                    add(workRows[a], t, p.rateA());
                    add(workRows[b], t, p.rateB());
                    slotRows[a].set(t, 1.0);
                    slotRows[b].set(t, 1.0);
                }
            }
            Optimisation.Result r = model.minimise();
            state = r.getState().name();
            if (!(r.getState().isOptimal() || r.getState().isFeasible())) {
                pairTimes = null;
                makespan = mu = Double.NaN;
                workDual = slotDual = null;
                return;
            }
            makespan = m.getValue().doubleValue();
            pairTimes = new double[columns.size];
            for (int k = 0; k < pairTimes.length; k++) pairTimes[k] = pairVars[k].getValue().doubleValue();
            Map<Object, Double> duals = new IdentityHashMap<>();
            for (var e : r.getMatchedMultipliers()) duals.put(e.getKey().first(), Math.abs(e.getValue().doubleValue()));
            mu = duals.getOrDefault(gpus, 0.0);
            workDual = new double[n];
            slotDual = new double[n];
            for (int s = 0; s < n; s++) {
                workDual[s] = workRows[s] == null ? 0 : duals.getOrDefault(workRows[s], 0.0);
                slotDual[s] = duals.getOrDefault(slotRows[s], 0.0);
            }
        }

        boolean solved() { return pairTimes != null; }
    }

    /** Adds {@code factor * v} to a row, unless the row was left out (null). */
    private static void add(Expression row, Variable v, double factor) {
        if (row != null) row.set(v, factor);
    }
}
