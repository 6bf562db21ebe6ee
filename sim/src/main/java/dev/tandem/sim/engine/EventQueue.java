package dev.tandem.sim.engine;

import java.util.PriorityQueue;

/**
 * The simulator's future events: a binary heap ordered by time, then by insertion, so that events at the
 * same instant are processed in the order they were scheduled (which keeps runs deterministic). Stale events
 * are not removed; their {@code token} lets the receiver recognise and drop them when they come up, which
 * keeps every update O(log n).
 */
public final class EventQueue<T> {
    /** One scheduled event. */
    public record Event<T>(double time, long seq, int type, T payload, long token) {}

    /** One comparison, written out: the heap compares tens of millions of times on large runs. */
    private final PriorityQueue<Event<T>> heap = new PriorityQueue<>((a, b) -> {
        int byTime = Double.compare(a.time(), b.time());
        return byTime != 0 ? byTime : Long.compare(a.seq(), b.seq());
    });
    private long seq;

    public void push(double time, int type, T payload, long token) {
        heap.add(new Event<>(time, seq++, type, payload, token));
    }

    public Event<T> poll() { return heap.poll(); }

    public boolean isEmpty() { return heap.isEmpty(); }

    /** Time of the next event, +inf when none. */
    public double peekTime() {
        Event<T> e = heap.peek();
        return e == null ? Double.POSITIVE_INFINITY : e.time();
    }

    public int size() { return heap.size(); }
}
