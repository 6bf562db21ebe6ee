package dev.tandem.sim.engine;

import java.util.Arrays;

/**
 * The simulator's future events: ordered by time, then by when they were scheduled, so that events at the same instant
 * are processed in the order they were scheduled (which keeps runs deterministic). An event that is still to come can be
 * moved ({@link #reschedule}) or withdrawn ({@link #withdraw}): a job's completion moves whenever its speed changes,
 * and when each move left the old event behind, to be dropped when it came up, nineteen of twenty events in the heap
 * of a long replay were such leftovers (the Philly trace under gavel-packed: 14,500 events on average for 256 GPUs).
 * A binary heap kept in parallel arrays (times, scheduling numbers, events), each event knowing its place.
 */
public final class EventQueue<T> {
    /** One scheduled event; while it waits it knows its place in the heap. */
    public static final class Event<T> {
        private double time;
        private final int type;
        private final T payload;
        private long token;
        /** Its place in the heap, -1 once taken out or withdrawn. */
        private int index = -1;

        private Event(double time, int type, T payload, long token) {
            this.time = time;
            this.type = type;
            this.payload = payload;
            this.token = token;
        }

        public double time() { return time; }

        public int type() { return type; }

        public T payload() { return payload; }

        public long token() { return token; }
    }

    private double[] times = new double[16];
    private long[] seqs = new long[16];
    @SuppressWarnings("unchecked")
    private Event<T>[] items = new Event[16];
    private int size;
    private long scheduled;

    /** Schedules a new event. */
    public Event<T> push(double time, int type, T payload, long token) {
        Event<T> e = new Event<>(time, type, payload, token);
        if (size == times.length) grow();
        siftUp(size++, time, scheduled++, e);
        return e;
    }

    /**
     * Moves {@code e} to {@code time} with a new token, as if it were withdrawn and pushed anew (it comes after the
     * events already scheduled for that time); pushes a new event when {@code e} is null or no longer waits.
     */
    public Event<T> reschedule(Event<T> e, double time, int type, T payload, long token) {
        if (e == null || e.index < 0) return push(time, type, payload, token);
        if (e.type != type || e.payload != payload) throw new IllegalArgumentException("an event moves with its own type and payload");
        e.time = time;
        e.token = token;
        place(e.index, time, scheduled++, e);
        return e;
    }

    /** Takes {@code e} out if it still waits (null, or an event already taken out, is left alone). */
    public void withdraw(Event<T> e) {
        if (e == null || e.index < 0) return;
        int at = e.index, last = --size;
        e.index = -1;
        if (at != last) place(at, times[last], seqs[last], items[last]);
        items[last] = null;
    }

    /** The earliest event (the first scheduled among equals), removed; null when none. */
    public Event<T> poll() {
        if (size == 0) return null;
        Event<T> top = items[0];
        top.index = -1;
        int last = --size;
        if (last > 0) siftDown(0, times[last], seqs[last], items[last]);
        items[last] = null; // holds nothing it has handed out
        return top;
    }

    public boolean isEmpty() { return size == 0; }

    /** Time of the next event, +inf when none. */
    public double peekTime() { return size == 0 ? Double.POSITIVE_INFINITY : times[0]; }

    public int size() { return size; }

    private static boolean before(double t1, long s1, double t2, long s2) {
        return t1 < t2 || (t1 == t2 && s1 < s2);
    }

    /** Puts an event at {@code at} (a hole, or its own old place) and moves it up or down to where it fits. */
    private void place(int at, double time, long seq, Event<T> e) {
        if (at > 0 && before(time, seq, times[(at - 1) >>> 1], seqs[(at - 1) >>> 1])) siftUp(at, time, seq, e);
        else siftDown(at, time, seq, e);
    }

    /** Moves the hole at {@code at} up until the event fits there, and puts it there. */
    private void siftUp(int at, double time, long seq, Event<T> e) {
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (!before(time, seq, times[parent], seqs[parent])) break;
            set(at, times[parent], seqs[parent], items[parent]);
            at = parent;
        }
        set(at, time, seq, e);
    }

    /** Moves the hole at {@code at} down until the event fits there, and puts it there. */
    private void siftDown(int at, double time, long seq, Event<T> e) {
        int half = size >>> 1;
        while (at < half) {
            int child = 2 * at + 1, right = child + 1;
            if (right < size && before(times[right], seqs[right], times[child], seqs[child])) child = right;
            if (!before(times[child], seqs[child], time, seq)) break;
            set(at, times[child], seqs[child], items[child]);
            at = child;
        }
        set(at, time, seq, e);
    }

    private void set(int at, double time, long seq, Event<T> e) {
        times[at] = time;
        seqs[at] = seq;
        items[at] = e;
        e.index = at;
    }

    private void grow() {
        int n = times.length * 2;
        times = Arrays.copyOf(times, n);
        seqs = Arrays.copyOf(seqs, n);
        items = Arrays.copyOf(items, n);
    }
}
