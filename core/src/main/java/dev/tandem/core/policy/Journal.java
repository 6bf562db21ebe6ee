package dev.tandem.core.policy;

/**
 * A world's record of changes to one of its sets (the queue, the running jobs), in order: every item that was added
 * to it or taken from it. A policy that keeps its own index of the set follows these changes instead of rescanning
 * it every round; a world that keeps no journal makes such policies rescan.
 *
 * <p>The last {@code capacity} changes are kept; a reader that fell further behind is told so and rebuilds.
 */
public abstract class Journal<T> {
    /** What a reader does with each change. */
    public interface Reader<T> {
        void changed(T item, boolean added);

        /**
         * The item stays in the set, where it was, but what the world shows of it changed in a way the journal's promise
         * does not cover (see {@link RunningJournal#reshown}). Readers whose index does not depend on it ignore it.
         */
        default void updated(T item) {}
    }

    private static final byte REMOVED = 0, ADDED = 1, UPDATED = 2;

    private final Object[] items;
    private final byte[] kinds;
    private long count;

    protected Journal(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be at least 1");
        this.items = new Object[capacity];
        this.kinds = new byte[capacity];
    }

    protected final void record(T item, boolean in) {
        record(item, in ? ADDED : REMOVED);
    }

    /** Records that {@code item} stays in the set but should be looked at again ({@link Reader#updated}). */
    protected final void recordUpdate(T item) {
        record(item, UPDATED);
    }

    private void record(T item, byte kind) {
        int at = (int) (count % items.length);
        items[at] = item;
        kinds[at] = kind;
        count++;
    }

    /** Changes recorded so far: a reader remembers this and later asks for what came after it. */
    public final long count() { return count; }

    /**
     * Hands the reader every change after the first {@code from}, oldest first; false (and nothing handed) if some
     * of them are no longer kept.
     */
    @SuppressWarnings("unchecked")
    public final boolean readSince(long from, Reader<T> reader) {
        if (from < 0 || from > count || count - from > items.length) return false;
        for (long k = from; k < count; k++) {
            int at = (int) (k % items.length);
            T item = (T) items[at];
            switch (kinds[at]) {
                case ADDED -> reader.changed(item, true);
                case REMOVED -> reader.changed(item, false);
                default -> reader.updated(item);
            }
        }
        return true;
    }
}
