package dev.tandem.sim.engine;

import java.util.Arrays;

/** Cluster state over simulated time, one point per change: queue length, busy GPUs, shared GPUs. */
public final class TimeSeries {
    private double[] t = new double[256];
    private int[] queue = new int[256];
    private int[] busy = new int[256];
    private int[] shared = new int[256];
    private int n;

    void add(double time, int q, int b, int s) {
        if (n > 0 && queue[n - 1] == q && busy[n - 1] == b && shared[n - 1] == s) return;
        if (n > 0 && t[n - 1] == time) n--; // keep the last state of an instant
        if (n == t.length) {
            t = Arrays.copyOf(t, n * 2);
            queue = Arrays.copyOf(queue, n * 2);
            busy = Arrays.copyOf(busy, n * 2);
            shared = Arrays.copyOf(shared, n * 2);
        }
        t[n] = time;
        queue[n] = q;
        busy[n] = b;
        shared[n] = s;
        n++;
    }

    public int size() { return n; }
    public double time(int i) { return t[i]; }
    public int queue(int i) { return queue[i]; }
    public int busy(int i) { return busy[i]; }
    public int shared(int i) { return shared[i]; }

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
