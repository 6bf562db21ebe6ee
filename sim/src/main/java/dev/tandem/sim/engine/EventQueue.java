package dev.tandem.sim.engine;

import dev.tandem.core.policy.TimeHeap;

/**
 * The simulator's future events: ordered by time, then by when they were scheduled, so that events at the same instant
 * are processed in the order they were scheduled (which keeps runs deterministic). An event that is still to come can be
 * moved ({@link #reschedule}) or withdrawn ({@link #withdraw}): a job's completion moves whenever its speed changes,
 * and when each move left the old event behind, to be dropped when it came up, nineteen of twenty events in the heap
 * of a long replay were such leftovers (the Philly trace under gavel-packed: 14,500 events on average for 256 GPUs).
 */
public final class EventQueue<T> {
    /** One scheduled event; while it waits it knows its place in the heap. */
    public static final class Event<T> implements TimeHeap.Placed {
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

        @Override public void placedAt(int index) { this.index = index; }

        public double time() { return time; }

        public int type() { return type; }

        public T payload() { return payload; }

        public long token() { return token; }
    }

    private final TimeHeap<Event<T>> heap = new TimeHeap<>();

    /** Schedules a new event. */
    public Event<T> push(double time, int type, T payload, long token) {
        Event<T> e = new Event<>(time, type, payload, token);
        heap.add(time, e);
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
        heap.move(e.index, time);
        return e;
    }

    /** Takes {@code e} out if it still waits (null, or an event already taken out, is left alone). */
    public void withdraw(Event<T> e) {
        if (e != null && e.index >= 0) heap.remove(e.index);
    }

    /** The earliest event (the first scheduled among equals), removed; null when none. */
    public Event<T> poll() { return heap.poll(); }

    public boolean isEmpty() { return heap.isEmpty(); }

    /** Time of the next event, +inf when none. */
    public double peekTime() { return heap.peekTime(); }

    public int size() { return heap.size(); }
}
