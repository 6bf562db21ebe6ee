package dev.tandem.sim.engine;

import java.util.Arrays;

/** Cluster state over simulated time, one point per change: queue length, running jobs, busy GPUs, shared GPUs. */
public final class TimeSeries {
    private double[] t = new double[256];
    private int[] queue = new int[256];
    private int[] running = new int[256];
    private int[] busy = new int[256];
    private int[] shared = new int[256];
    private int n;

    void add(double time, int q, int r, int b, int s) {
        if (n > 0 && queue[n - 1] == q && running[n - 1] == r && busy[n - 1] == b && shared[n - 1] == s) return;
        if (n > 0 && t[n - 1] == time) n--; // keep the last state of an instant
        if (n == t.length) {
            t = Arrays.copyOf(t, n * 2);
            queue = Arrays.copyOf(queue, n * 2);
            running = Arrays.copyOf(running, n * 2);
            busy = Arrays.copyOf(busy, n * 2);
            shared = Arrays.copyOf(shared, n * 2);
        }
        t[n] = time;
        queue[n] = q;
        running[n] = r;
        busy[n] = b;
        shared[n] = s;
        n++;
    }

    public int size() { return n; }
    public double time(int i) { return t[i]; }
    public int queue(int i) { return queue[i]; }
    public int running(int i) { return running[i]; }
    public int busy(int i) { return busy[i]; }
    public int shared(int i) { return shared[i]; }

    /**
     * Jobs submitted and not finished (queued or running), integrated over time from the first point to {@code t}:
     * the series is a step function, each point's state holding until the next (points have distinct times).
     */
    double jobsInSystemIntegral(double t) {
        if (prefix == null || prefix.length != n) {
            prefix = new double[n];
            for (int i = 1; i < n; i++) prefix[i] = prefix[i - 1] + (queue[i - 1] + running[i - 1]) * (this.t[i] - this.t[i - 1]);
        }
        int i = Arrays.binarySearch(this.t, 0, n, t);
        if (i < 0) i = -i - 2; // the last point before t
        if (i < 0) return 0;
        return prefix[i] + (queue[i] + running[i]) * (t - this.t[i]);
    }

    /** The integral up to each point, built on first use (the series is complete by then). */
    private double[] prefix;

    /** Indices of at most {@code max} points spread evenly over the series (first and last kept). */
    public int[] sample(int max) {
        if (n <= max) {
            int[] all = new int[n];
            for (int i = 0; i < n; i++) all[i] = i;
            return all;
        }
        int[] idx = new int[max];
        for (int i = 0; i < max; i++) idx[i] = (int) Math.round((double) i * (n - 1) / (max - 1));
        return idx;
    }
}
