package dev.tandem.core.policies;

import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The load that keeps arriving: solo GPU-seconds submitted per second over a recent window, as a share of the
 * cluster's GPUs. The plan's horizon is when the work already here would end; while work keeps arriving at load
 * rho below 1, the cluster drains its backlog at only 1 - rho of its speed, so the busy period the makespan belongs
 * to lasts horizon / (1 - rho) (the busy period of a queue with that load; bounded, see {@link #stretch}). Measured against the plain horizon, a long
 * job of a steady stream looks late long before it is and takes GPUs ahead of the short jobs that keep arriving (on
 * the Alibaba trace on 16 GPUs that cost most of tandem's mean completion time).
 *
 * <p>What was submitted together with the first job seen is the backlog itself, not a stream (a batch has no load
 * after it): only later submissions count. New submissions are looked for at the tail of the queue, where submission
 * order puts them, so a round costs the jobs that arrived since the last one and {@link #TAIL_LOOK} more. Where
 * priorities or fair shares reorder the queue (the daemon's admission), a new job placed further up is not counted:
 * the load is then underestimated, which errs towards the plain horizon. Lengths are what the policy is told (its
 * knowledge of length), not the true ones. Stateful: one instance per policy instance.
 */
final class ArrivalLoad {
    /** Jobs submitted before the last round's newest that end the look at the tail. */
    static final int TAIL_LOOK = 16;

    /** Counted submissions in submission order: their times, and the solo GPU-seconds submitted up to each (inclusive). */
    private double[] times = new double[64], cumulative = new double[64];
    private int count;
    private double firstSubmit = Double.NaN, latestSeen = Double.NEGATIVE_INFINITY;

    /** Takes in the jobs submitted since the last round (found at the queue's tail). */
    void observe(SchedulerSnapshot s) {
        List<PendingJob> queue = s.queue();
        List<PendingJob> fresh = null;
        int older = 0;
        for (int i = queue.size() - 1; i >= 0 && older < TAIL_LOOK; i--) {
            PendingJob p = queue.get(i);
            if (!(p.job().submitTime() > latestSeen)) {
                older++;
                continue;
            }
            older = 0;
            if (fresh == null) fresh = new ArrayList<>();
            fresh.add(p);
        }
        if (fresh == null) return;
        fresh.sort(Comparator.comparingDouble(p -> p.job().submitTime()));
        if (Double.isNaN(firstSubmit)) firstSubmit = fresh.getFirst().job().submitTime();
        for (PendingJob p : fresh) {
            double submit = p.job().submitTime();
            latestSeen = Math.max(latestSeen, submit);
            if (submit == firstSubmit) continue; // the opening backlog
            double work = s.expectedSoloSeconds(p) * p.job().gpus(); // its whole length, as told, on arrival
            if (Double.isFinite(work)) add(submit, work);
        }
    }

    private void add(double time, double work) {
        if (count == times.length) {
            times = Arrays.copyOf(times, count * 2);
            cumulative = Arrays.copyOf(cumulative, count * 2);
        }
        times[count] = time;
        cumulative[count] = (count == 0 ? 0 : cumulative[count - 1]) + work;
        count++;
    }

    /**
     * The share of the cluster's GPUs that the work submitted over the last {@code windowSeconds} (or since the first
     * submission, if that is shorter) would keep busy; 0 before any stream was seen.
     */
    double load(SchedulerSnapshot s, double windowSeconds) {
        if (count == 0 || !(windowSeconds > 0)) return 0;
        double work = workSince(s.now() - windowSeconds);
        double span = Math.min(windowSeconds, s.now() - firstSubmit);
        return span > 0 ? work / (span * s.cluster().gpuCount()) : 0;
    }

    /**
     * The solo GPU-seconds submitted after {@code time} (lengths as the policy was told them on arrival), not counting
     * the opening backlog.
     */
    double workSince(double time) {
        int first = 0, hi = count; // the first submission after `time`
        while (first < hi) {
            int mid = (first + hi) >>> 1;
            if (times[mid] <= time) first = mid + 1;
            else hi = mid;
        }
        return first == count ? 0 : cumulative[count - 1] - (first == 0 ? 0 : cumulative[first - 1]);
    }

    /**
     * The horizon stretched by the arriving load, at most {@link #MAX_STRETCH} times: a load measured over one horizon
     * says little about the work beyond a few, and unbounded (no deadline at all under overload) no long job is ever
     * late, so under a long overload long jobs wait for the starvation bound and then all come first at once. Measured
     * (mean JCT / makespan): Philly (Pollux's cut, 32x8) 37.3 h / 3,010 h capped at 4, 74.8 h / 2,998 h unbounded;
     * Alibaba 2x8 12.6 h / 4,389 h capped at 3 to 6, 12.1 h / 4,185 h at 10 or unbounded, 75.2 h / 4,344 h without
     * the stretch.
     */
    double stretch(SchedulerSnapshot s, double horizonSeconds) {
        if (!(horizonSeconds > 0)) return horizonSeconds;
        double rho = load(s, horizonSeconds);
        return horizonSeconds * (rho >= 1 ? MAX_STRETCH : Math.min(MAX_STRETCH, 1 / (1 - rho)));
    }

    /** The most the arriving load stretches the horizon: a load of 0.75 or more. */
    static final double MAX_STRETCH = 4;
}
