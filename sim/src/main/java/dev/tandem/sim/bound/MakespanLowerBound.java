package dev.tandem.sim.bound;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.sim.truth.InterferenceTruth;
import dev.tandem.sim.truth.TruthPair;
import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A lower bound on the makespan of a workload under the ground-truth interference, from a linear programme
 * over GPU configurations (solved with ojAlgo).
 *
 * <p>Jobs are grouped by (workload, gang size); a group s has n_s jobs and W_s solo-seconds of work. A
 * configuration c runs one job of a group alone, or a pair of jobs (of two groups, or two of one group) that
 * fits in memory on the same GPUs; it advances group s at rate r_s(c) (the truth's speed relative to solo)
 * and occupies g(c) GPUs. With t_c the GPU-set-time spent in c and M the makespan:
 * <pre>
 *   minimise M
 *   sum_c r_s(c) t_c       >= W_s          every group's work gets done
 *   sum_c g(c) t_c         <= G M          the cluster's G GPUs over the makespan
 *   sum_c jobs_s(c) t_c    <= n_s M        a job is in at most one configuration at a time
 *   t_c >= 0
 * </pre>
 * Any schedule gives a feasible point, so the optimum is a lower bound. Preemption and placement constraints
 * are relaxed away and arrivals are ignored, so for staggered arrivals the bound is looser; it is combined with
 * the per-job bound {@code max_j(release_j + W_j / best rate_j)}. Pairs whose speeds sum to at most 1 are left
 * out: running the two jobs alone in turn does as well.
 */
public final class MakespanLowerBound {
    /** The bound and its parts. */
    public record Bound(double makespanS, double lpMakespanS, double longestJobS, int configurations, String solverState) {}

    static {
        // ojAlgo prints a hardware-profile notice on first use unless told not to
        System.setProperty("shut.up.ojAlgo", "true");
    }

    private MakespanLowerBound() {}

    private record GroupKey(WorkloadSignature sig, int gpus) {}

    private static final class Group {
        final JobProfile profile;
        final int gpus;
        int count;
        double work;
        Variable solo;

        Group(JobProfile profile, int gpus) {
            this.profile = profile;
            this.gpus = gpus;
        }
    }

    public static Bound compute(List<Job> jobs, ProfileStore profiles, InterferenceTruth truth, Cluster cluster) {
        if (jobs.isEmpty()) return new Bound(0, 0, 0, 0, "EMPTY");
        long capacity = cluster.maxGpuMemoryMiB();
        Map<GroupKey, Group> groups = new LinkedHashMap<>();
        double first = jobs.stream().mapToDouble(Job::submitTime).min().orElse(0);
        for (Job j : jobs) {
            JobProfile p = profiles.get(j.signature());
            Group g = groups.computeIfAbsent(new GroupKey(j.signature(), j.gpus()), k -> new Group(p, j.gpus()));
            g.count++;
            g.work += j.totalIterations() / p.soloSpeed();
        }
        List<Group> list = new ArrayList<>(groups.values());
        ExpressionsBasedModel model = new ExpressionsBasedModel();
        Variable m = model.addVariable("M").lower(0).weight(1);
        Map<Group, Expression> work = new LinkedHashMap<>();
        Map<Group, Expression> conc = new LinkedHashMap<>();
        Map<Group, Double> bestRate = new LinkedHashMap<>();
        Expression gpus = model.addExpression("gpus").upper(0);
        gpus.set(m, -cluster.gpuCount());
        int i = 0;
        for (Group g : list) {
            work.put(g, model.addExpression("work" + i).lower(g.work));
            Expression c = model.addExpression("conc" + i).upper(0);
            c.set(m, -g.count);
            conc.put(g, c);
            bestRate.put(g, 1.0);
            g.solo = model.addVariable("solo" + i).lower(0);
            work.get(g).set(g.solo, 1.0);
            c.set(g.solo, 1.0);
            gpus.set(g.solo, g.gpus);
            i++;
        }
        int configs = list.size();
        for (int a = 0; a < list.size(); a++) {
            for (int b = a; b < list.size(); b++) {
                Group ga = list.get(a), gb = list.get(b);
                if (ga.gpus != gb.gpus || (a == b && ga.count < 2)) continue;
                TruthPair tp = truth.pair(ga.profile, gb.profile, ga.gpus);
                if (tp.infeasible()) continue;
                double mem = Double.isNaN(tp.pairMemoryMiB()) ? memory(ga) + memory(gb) : tp.pairMemoryMiB();
                if (mem > capacity) continue;
                if (tp.speedA() + tp.speedB() <= 1.0) continue;
                Variable t = model.addVariable("pair" + a + "_" + b).lower(0);
                configs++;
                gpus.set(t, ga.gpus);
                if (a == b) {
                    work.get(ga).set(t, tp.speedA() + tp.speedB());
                    conc.get(ga).set(t, 2.0);
                } else {
                    work.get(ga).set(t, tp.speedA());
                    work.get(gb).set(t, tp.speedB());
                    conc.get(ga).set(t, 1.0);
                    conc.get(gb).set(t, 1.0);
                }
                bestRate.merge(ga, tp.speedA(), Math::max);
                bestRate.merge(gb, tp.speedB(), Math::max);
            }
        }
        Optimisation.Result r = model.minimise();
        double lp = r.getState().isOptimal() || r.getState().isFeasible() ? m.getValue().doubleValue() : Double.NaN;
        double longest = 0;
        for (Job j : jobs) {
            Group g = groups.get(new GroupKey(j.signature(), j.gpus()));
            double solo = j.totalIterations() / g.profile.soloSpeed();
            longest = Math.max(longest, j.submitTime() - first + solo / bestRate.get(g));
        }
        double bound = Double.isNaN(lp) ? longest : Math.max(lp, longest);
        return new Bound(bound, lp, longest, configs, r.getState().name());
    }

    private static double memory(Group g) {
        return g.profile.hasMemory() ? g.profile.gmemMiB() : 0;
    }
}
