package dev.tandem.bench;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.data.truth.InterferenceTruth;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The baseline the benchmarks compare tandem's simulator with: a fixed one-second-tick loop in the style of
 * Lucid's simulator. Every tick it advances every running job by one second, retires finished ones and asks
 * the policy. Same policy, same ground truth; no crash modelling (benchmarked policies avoid crashes).
 * Deliberately naive: it exists to be measured against, not to be used.
 */
final class NaiveTickSimulator {
    private static final class State {
        final Job job;
        final JobProfile profile;
        double done;
        List<Integer> gpus = List.of();
        double started;

        State(Job job, JobProfile profile) {
            this.job = job;
            this.profile = profile;
        }
    }

    record Result(double makespan, long ticks, double wallSeconds) {}

    static Result run(Cluster cluster, ProfileStore profiles, InterferenceTruth truth, List<Job> jobs, Policy policy, CompatibilityModel oracle) {
        long t0 = System.nanoTime();
        List<State> pending = new ArrayList<>();
        for (Job j : jobs) pending.add(new State(j, profiles.get(j.signature())));
        pending.sort(Comparator.comparingDouble(s -> s.job.submitTime()));
        Map<String, State> queued = new LinkedHashMap<>(), running = new LinkedHashMap<>();
        int next = 0, finished = 0;
        long tick = 0;
        double last = 0;
        while (finished < jobs.size()) {
            double now = tick;
            while (next < pending.size() && pending.get(next).job.submitTime() <= now) {
                State s = pending.get(next++);
                queued.put(s.job.id(), s);
            }
            Map<Integer, List<State>> onGpu = new HashMap<>();
            for (State s : running.values()) for (int g : s.gpus) onGpu.computeIfAbsent(g, x -> new ArrayList<>()).add(s);
            for (State s : new ArrayList<>(running.values())) {
                double rel = 1;
                for (int g : s.gpus) for (State o : onGpu.get(g)) if (o != s) rel = Math.min(rel, truth.pair(s.profile, o.profile, s.job.gpus()).speedA());
                s.done += s.profile.soloSpeed() * rel;
                if (s.done >= s.job.totalIterations()) {
                    running.remove(s.job.id());
                    finished++;
                    last = now + 1;
                }
            }
            if (!queued.isEmpty()) {
                List<PendingJob> q = new ArrayList<>();
                for (State s : queued.values()) q.add(new PendingJob(s.job, s.job.submitTime(), 0, s.job.totalIterations() - s.done, 0));
                List<RunningJob> r = new ArrayList<>();
                for (State s : running.values()) r.add(new RunningJob(s.job, s.gpus, s.started, s.started, s.job.totalIterations() - s.done, 0, Double.NaN));
                SchedulerSnapshot snap = new SchedulerSnapshot(now, cluster, q, r, profiles, oracle, MemoryRule.DEFAULT, Map.of(), Set.of());
                for (Decision d : policy.decide(snap)) {
                    if (d instanceof Decision.Start st) {
                        State s = queued.remove(st.jobId());
                        s.gpus = st.gpus();
                        s.started = now;
                        running.put(s.job.id(), s);
                    } else if (d instanceof Decision.Preempt p) {
                        State s = running.remove(p.jobId());
                        queued.put(s.job.id(), s);
                    }
                }
            }
            tick++;
        }
        return new Result(last, tick, (System.nanoTime() - t0) / 1e9);
    }
}
