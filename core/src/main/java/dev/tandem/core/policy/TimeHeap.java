package dev.tandem.core.policy;

import java.util.Arrays;

/**
 * Items due at times, earliest first; among items due at the same time, the one added first. A binary heap kept in
 * parallel arrays (times, insertion numbers, items) rather than as objects behind a comparator: a replay with hundreds
 * of thousands of preemptions adds and takes millions of these (the simulator's future events, the re-checks of the
 * preemptive policies), and a comparison that followed two references per step was a tenth of such a replay.
 * An item that is {@link Placed} is told where it is, so that it can be moved ({@link #move}) or taken out
 * ({@link #remove}) before it is due: the simulator's completion of a job moves whenever the job's speed changes.
 */
public final class TimeHeap<T> {
    /** An item that keeps track of its place in the heap. */
    public interface Placed {
        /** Its place now; -1 once it has been taken out. */
        void placedAt(int index);
    }

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
        remove(0);
        return top;
    }

    /**
     * Moves the item at {@code index} (as its {@link Placed#placedAt} said) to be due at {@code time}, as if it were taken
     * out and added anew: it comes after the items already due then.
     */
    public void move(int index, double time) {
        place(index, time, added++, items[index]);
    }

    /** Takes out the item at {@code index} (as its {@link Placed#placedAt} said). */
    public void remove(int index) {
        Object item = items[index];
        int last = --size;
        if (index < last) place(index, times[last], seqs[last], items[last]); // the last item fills the hole
        items[last] = null; // holds nothing it has handed out
        if (item instanceof Placed p) p.placedAt(-1);
    }

    /** Puts an item at {@code at} (a hole, or its own old place) and moves it up or down to where it fits. */
    private void place(int at, double time, long seq, Object item) {
        int parent = (at - 1) >>> 1;
        if (at > 0 && before(time, seq, times[parent], seqs[parent])) siftUp(at, time, seq, item);
        else siftDown(at, time, seq, item);
    }

    /** The earliest item, left in place; null when there is none. */
    @SuppressWarnings("unchecked")
    public T peek() { return size == 0 ? null : (T) items[0]; }

    /** When the earliest item is due, +inf when there is none. */
    public double peekTime() { return size == 0 ? Double.POSITIVE_INFINITY : times[0]; }

    public int size() { return size; }

    public boolean isEmpty() { return size == 0; }

    public void clear() {
        for (int i = 0; i < size; i++) if (items[i] instanceof Placed p) p.placedAt(-1);
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
        if (item instanceof Placed p) p.placedAt(at);
    }

    private void grow() {
        int n = times.length * 2;
        times = Arrays.copyOf(times, n);
        seqs = Arrays.copyOf(seqs, n);
        items = Arrays.copyOf(items, n);
    }
}
