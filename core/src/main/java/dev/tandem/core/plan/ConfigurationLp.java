package dev.tandem.core.plan;

import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Presolvers;
import org.ojalgo.optimisation.Variable;

import java.util.ArrayList;
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

    private record Group(double work, int count, int gpus) {}

    private record Pair(int a, int b, double rateA, double rateB) {}

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
        Group ga = groups.get(a), gb = groups.get(b);
        if (ga.gpus != gb.gpus || (a == b && ga.count < 2)) return false;
        if (!(rateA >= 0 && rateB >= 0) || rateA + rateB <= 1.0) return false;
        pairs.add(new Pair(a, b, rateA, rateB));
        return true;
    }

    /** Solo plus pair configurations so far. */
    public int configurations() { return groups.size() + pairs.size(); }

    /**
     * The optimum. Prices are normalised by the GPU price mu (so a GPU-second is worth 1); when mu is zero
     * (the makespan is set by a few long jobs, not by the GPUs) or the solver fails, {@link Solution#priced()}
     * is false and the prices are NaN.
     *
     * @param pairTimes per pair added (in order), the GPU-set-seconds the optimum runs it
     */
    public record Solution(String state, double makespanS, double[] workPrice, double[] slotPrice, double[] pairTimes, int configurations) {
        public boolean optimal() { return !Double.isNaN(makespanS); }

        public boolean priced() { return workPrice.length == 0 || !Double.isNaN(workPrice[0]); }
    }

    public Solution solve() {
        int n = groups.size();
        double[] work = new double[n], slot = new double[n], times = new double[pairs.size()];
        java.util.Arrays.fill(work, Double.NaN);
        java.util.Arrays.fill(slot, Double.NaN);
        java.util.Arrays.fill(times, Double.NaN);
        if (n == 0) return new Solution("EMPTY", 0, work, slot, times, 0);

        ExpressionsBasedModel model = new ExpressionsBasedModel();
        Variable m = model.addVariable("M").lower(0).weight(1);
        Expression gpus = model.addExpression("gpus").upper(0);
        gpus.set(m, -clusterGpus);
        Expression[] workRows = new Expression[n], slotRows = new Expression[n];
        for (int s = 0; s < n; s++) {
            Group g = groups.get(s);
            // a group with no work left has no work row, and so no work price: the row could not bind (ojAlgo's presolve
            // dropped it when it ran; without it the solver priced such a row at an arbitrary value)
            workRows[s] = g.work > 0 ? model.addExpression("work" + s).lower(g.work) : null;
            slotRows[s] = model.addExpression("slots" + s).upper(0);
            slotRows[s].set(m, -g.count);
            Variable solo = model.addVariable("solo" + s).lower(0);
            add(workRows[s], solo, 1.0);
            slotRows[s].set(solo, 1.0);
            gpus.set(solo, g.gpus);
        }
        List<Variable> pairVars = new ArrayList<>(pairs.size());
        for (int i = 0; i < pairs.size(); i++) {
            Pair p = pairs.get(i);
            Variable t = model.addVariable("pair" + i).lower(0);
            pairVars.add(t);
            gpus.set(t, groups.get(p.a).gpus);
            if (p.a == p.b) {
                add(workRows[p.a], t, p.rateA + p.rateB);
                slotRows[p.a].set(t, 2.0);
            } else {
                add(workRows[p.a], t, p.rateA);
                add(workRows[p.b], t, p.rateB);
                slotRows[p.a].set(t, 1.0);
                slotRows[p.b].set(t, 1.0);
            }
        }
        Optimisation.Result r = model.minimise();
        if (!(r.getState().isOptimal() || r.getState().isFeasible())) {
            return new Solution(r.getState().name(), Double.NaN, work, slot, times, configurations());
        }
        for (int i = 0; i < times.length; i++) times[i] = pairVars.get(i).getValue().doubleValue();

        Map<Object, Double> duals = new IdentityHashMap<>();
        for (var e : r.getMatchedMultipliers()) duals.put(e.getKey().first(), Math.abs(e.getValue().doubleValue()));
        double mu = duals.getOrDefault(gpus, 0.0);
        if (mu > 1e-12) {
            for (int s = 0; s < n; s++) {
                work[s] = duals.getOrDefault(workRows[s], 0.0) / mu;
                slot[s] = duals.getOrDefault(slotRows[s], 0.0) / mu;
            }
        }
        return new Solution(r.getState().name(), m.getValue().doubleValue(), work, slot, times, configurations());
    }

    /** Adds {@code factor * v} to a row, unless the row was left out (null). */
    private static void add(Expression row, Variable v, double factor) {
        if (row != null) row.set(v, factor);
    }
}
