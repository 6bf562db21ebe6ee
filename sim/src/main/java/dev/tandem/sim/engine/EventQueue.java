package dev.tandem.sim.engine;

import dev.tandem.core.policy.TimeHeap;

/**
 * The simulator's future events: ordered by time, then by insertion, so that events at the same instant are
 * processed in the order they were scheduled (which keeps runs deterministic). Stale events are not removed; their
 * {@code token} lets the receiver recognise and drop them when they come up, which keeps every update O(log n).
 */
public final class EventQueue<T> {
    /** One scheduled event. */
    public record Event<T>(double time, int type, T payload, long token) {}

    private final TimeHeap<Event<T>> heap = new TimeHeap<>();

    public void push(double time, int type, T payload, long token) {
        heap.add(time, new Event<>(time, type, payload, token));
    }

    /** The earliest event (the first scheduled among equals), removed; null when none. */
    public Event<T> poll() { return heap.poll(); }

    public boolean isEmpty() { return heap.isEmpty(); }

    /** Time of the next event, +inf when none. */
    public double peekTime() { return heap.peekTime(); }

    public int size() { return heap.size(); }
}
