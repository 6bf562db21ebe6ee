package dev.tandem.core.policy;

import java.util.Arrays;

/**
 * Items due at times, earliest first; among items due at the same time, the one added first. A binary heap kept in
 * parallel arrays (times, insertion numbers, items) rather than as objects behind a comparator: a replay with hundreds
 * of thousands of preemptions adds and takes millions of these (the simulator's future events, the re-checks of the
 * preemptive policies), and a comparison that followed two references per step was a tenth of such a replay.
 */
public final class TimeHeap<T> {
    private double[] times = new double[16];
    private long[] seqs = new long[16];
    private Object[] items = new Object[16];
    private int size;
    private long added;

    public void add(double time, T item) {
        if (size == times.length) grow();
        siftUp(size++, time, added++, item);
    }

    /** The earliest item, removed; null when there is none. */
    @SuppressWarnings("unchecked")
    public T poll() {
        if (size == 0) return null;
        T top = (T) items[0];
        int last = --size;
        if (last > 0) siftDown(0, times[last], seqs[last], items[last]);
        items[last] = null; // holds nothing it has handed out
        return top;
    }

    /** The earliest item, left in place; null when there is none. */
    @SuppressWarnings("unchecked")
    public T peek() { return size == 0 ? null : (T) items[0]; }

    /** When the earliest item is due, +inf when there is none. */
    public double peekTime() { return size == 0 ? Double.POSITIVE_INFINITY : times[0]; }

    public int size() { return size; }

    public boolean isEmpty() { return size == 0; }

    public void clear() {
        Arrays.fill(items, 0, size, null);
        size = 0;
    }

    private static boolean before(double t1, long s1, double t2, long s2) {
        return t1 < t2 || (t1 == t2 && s1 < s2);
    }

    /** Moves the hole at {@code at} up until the item fits there, and puts it there. */
    private void siftUp(int at, double time, long seq, Object item) {
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (!before(time, seq, times[parent], seqs[parent])) break;
            set(at, times[parent], seqs[parent], items[parent]);
            at = parent;
        }
        set(at, time, seq, item);
    }

    /** Moves the hole at {@code at} down until the item fits there, and puts it there. */
    private void siftDown(int at, double time, long seq, Object item) {
        int half = size >>> 1;
        while (at < half) {
            int child = 2 * at + 1, right = child + 1;
            if (right < size && before(times[right], seqs[right], times[child], seqs[child])) child = right;
            if (!before(times[child], seqs[child], time, seq)) break;
            set(at, times[child], seqs[child], items[child]);
            at = child;
        }
        set(at, time, seq, item);
    }

    private void set(int at, double time, long seq, Object item) {
        times[at] = time;
        seqs[at] = seq;
        items[at] = item;
    }

    private void grow() {
        int n = times.length * 2;
        times = Arrays.copyOf(times, n);
        seqs = Arrays.copyOf(seqs, n);
        items = Arrays.copyOf(items, n);
    }
}
