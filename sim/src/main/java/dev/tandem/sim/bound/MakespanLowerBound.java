package dev.tandem.sim.bound;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.plan.ConfigurationLp;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.truth.InterferenceTruth;
import dev.tandem.data.truth.TruthPair;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A lower bound on the makespan of a workload under the ground-truth interference: the optimum of the
 * {@link ConfigurationLp} over solo and paired configurations at the truth's speeds (only pairs that fit in
 * memory), with jobs grouped by (workload, gang size).
 *
 * <p>Any schedule gives a feasible point, so the optimum is a lower bound. Preemption and placement constraints
 * are relaxed away and arrivals are ignored, so for staggered arrivals the bound is looser; it is combined with
 * the per-job bound {@code max_j(release_j + W_j / best rate_j)}.
 */
public final class MakespanLowerBound {
    /** The bound and its parts. */
    public record Bound(double makespanS, double lpMakespanS, double longestJobS, int configurations, String solverState) {}

    private MakespanLowerBound() {}

    private record GroupKey(WorkloadSignature sig, int gpus) {}

    private static final class Group {
        final JobProfile profile;
        final int gpus;
        int count;
        double work;
        double bestRate = 1.0;

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
        ConfigurationLp lp = new ConfigurationLp(cluster.gpuCount());
        for (Group g : list) lp.addGroup(g.work, g.count, g.gpus);
        for (int a = 0; a < list.size(); a++) {
            for (int b = a; b < list.size(); b++) {
                Group ga = list.get(a), gb = list.get(b);
                if (ga.gpus != gb.gpus || (a == b && ga.count < 2)) continue;
                TruthPair tp = truth.pair(ga.profile, gb.profile, ga.gpus);
                if (tp.infeasible()) continue;
                double mem = Double.isNaN(tp.pairMemoryMiB()) ? memory(ga) + memory(gb) : tp.pairMemoryMiB();
                if (mem > capacity) continue;
                if (!lp.addPair(a, b, tp.speedA(), tp.speedB())) continue;
                ga.bestRate = Math.max(ga.bestRate, tp.speedA());
                gb.bestRate = Math.max(gb.bestRate, tp.speedB());
            }
        }
        ConfigurationLp.Solution r = lp.solve();
        double longest = 0;
        for (Job j : jobs) {
            Group g = groups.get(new GroupKey(j.signature(), j.gpus()));
            double solo = j.totalIterations() / g.profile.soloSpeed();
            longest = Math.max(longest, j.submitTime() - first + solo / g.bestRate);
        }
        double bound = r.optimal() ? Math.max(r.makespanS(), longest) : longest;
        return new Bound(bound, r.makespanS(), longest, r.configurations(), r.state());
    }

    private static double memory(Group g) {
        return g.profile.hasMemory() ? g.profile.gmemMiB() : 0;
    }
}
