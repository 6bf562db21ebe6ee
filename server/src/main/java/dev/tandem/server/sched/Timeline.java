package dev.tandem.server.sched;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the dashboard draws over time, sampled by the scheduler loop after its rounds and kept in memory: GPUs busy
 * and shared, each GPU's utilisation, each running job's speed, and the gain from sharing, i.e. the extra work
 * co-located jobs did per busy GPU-hour compared with running them alone, from their measured speeds (a GPU running
 * two jobs at 0.7 and 0.8 of their solo speed does 1.5 GPU-hours of work per hour: +0.5). Thread-safe.
 */
public final class Timeline {
    /** A point of a job's speed: measured speed relative to alone (NaN when alone or not measured), iterations/s. */
    public record SpeedPoint(long at, double relative, double iterationsPerSecond) {}

    /** The cluster's series: sample times (epoch ms), busy and shared GPU counts. */
    public record ClusterSeries(List<Long> at, List<Integer> busy, List<Integer> shared) {}

    private static final long SPACING_MS = 5_000;
    private static final int CLUSTER_POINTS = 720;  // an hour at one point per 5 s
    private static final int GPU_POINTS = 30;
    private static final int JOB_POINTS = 360;
    private static final int JOBS_KEPT = 500;

    private final Deque<long[]> cluster = new ArrayDeque<>();
    private final List<Deque<Double>> utilisation = new ArrayList<>();
    private final Map<Long, Deque<SpeedPoint>> speeds = new LinkedHashMap<>(16, 0.75f, true) {
        @Override protected boolean removeEldestEntry(Map.Entry<Long, Deque<SpeedPoint>> e) { return size() > JOBS_KEPT; }
    };
    private long lastSample = Long.MIN_VALUE;
    private long lastGainUpdate = Long.MIN_VALUE;
    private double busyGpuMs;
    private double extraWorkGpuMs;

    /**
     * Accounts the time since the last call: every busy GPU adds its time, a GPU whose tenants all have measured
     * speeds adds (sum of their speeds - 1) of extra work. Called after every round.
     *
     * @param tenantSpeeds per GPU, the measured relative speeds of its tenants (empty: idle; NaN: not measured)
     */
    synchronized void account(long now, List<double[]> tenantSpeeds) {
        if (lastGainUpdate != Long.MIN_VALUE && now > lastGainUpdate) {
            long dt = now - lastGainUpdate;
            for (double[] tenants : tenantSpeeds) {
                if (tenants.length == 0) continue;
                busyGpuMs += dt;
                if (tenants.length < 2) continue;
                double sum = 0;
                boolean measured = true;
                for (double s : tenants) {
                    measured &= Double.isFinite(s);
                    sum += s;
                }
                if (measured) extraWorkGpuMs += dt * (sum - 1);
            }
        }
        lastGainUpdate = now;
    }

    /** Samples the series, at most one point per 5 s. */
    synchronized void sample(long now, int busy, int shared, List<Double> gpuUtilisation, Map<Long, SpeedPoint> jobSpeeds) {
        if (lastSample != Long.MIN_VALUE && now - lastSample < SPACING_MS) return;
        lastSample = now;
        cluster.addLast(new long[] {now, busy, shared});
        if (cluster.size() > CLUSTER_POINTS) cluster.removeFirst();
        while (utilisation.size() < gpuUtilisation.size()) utilisation.add(new ArrayDeque<>());
        for (int g = 0; g < gpuUtilisation.size(); g++) {
            Deque<Double> d = utilisation.get(g);
            d.addLast(gpuUtilisation.get(g));
            if (d.size() > GPU_POINTS) d.removeFirst();
        }
        jobSpeeds.forEach((job, p) -> {
            Deque<SpeedPoint> d = speeds.computeIfAbsent(job, k -> new ArrayDeque<>());
            d.addLast(p);
            if (d.size() > JOB_POINTS) d.removeFirst();
        });
    }

    /** The extra work per busy GPU-hour from sharing, or NaN before any GPU was busy. */
    public synchronized double sharingGain() { return busyGpuMs == 0 ? Double.NaN : extraWorkGpuMs / busyGpuMs; }

    public synchronized ClusterSeries cluster() {
        List<Long> at = new ArrayList<>();
        List<Integer> busy = new ArrayList<>(), shared = new ArrayList<>();
        for (long[] p : cluster) {
            at.add(p[0]);
            busy.add((int) p[1]);
            shared.add((int) p[2]);
        }
        return new ClusterSeries(at, busy, shared);
    }

    /** A GPU's latest utilisation samples (percent; NaN where none), oldest first. */
    public synchronized List<Double> utilisation(int gpu) {
        return gpu < utilisation.size() ? List.copyOf(utilisation.get(gpu)) : List.of();
    }

    /** A job's speed samples while it ran, oldest first (empty for a job never seen running). */
    public synchronized List<SpeedPoint> speeds(long jobId) {
        Deque<SpeedPoint> d = speeds.get(jobId);
        return d == null ? List.of() : List.copyOf(d);
    }
}
