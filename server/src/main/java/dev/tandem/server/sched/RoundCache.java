package dev.tandem.server.sched;

import java.util.Arrays;

/**
 * Values kept from one round to the next by job id, for the ids asked for in the round: what was not asked for is
 * forgotten when the round ends. Rounds ask in id order (the queue, in submission order), so a look-up is a step
 * along last round's sorted ids rather than a hash look-up, and keeping a value is an append: with 10,000 jobs queued,
 * the two hash maps this replaces were a sixteenth of every round. Asked out of order, it searches and sorts instead.
 */
final class RoundCache<V> {
    private long[] ids = new long[0];
    private Object[] values = new Object[0];
    private int size;
    private int cursor;
    private long[] nextIds = new long[16];
    private Object[] nextValues = new Object[16];
    private int nextSize;
    private boolean nextSorted = true;

    /** The value last round kept for this id, or null. */
    @SuppressWarnings("unchecked")
    V get(long id) {
        if (cursor > 0 && ids[cursor - 1] >= id) { // asked out of order (or again): search
            int i = Arrays.binarySearch(ids, 0, size, id);
            return i >= 0 ? (V) values[i] : null;
        }
        while (cursor < size && ids[cursor] < id) cursor++;
        if (cursor < size && ids[cursor] == id) return (V) values[cursor++];
        return null;
    }

    /** Keeps a value for the next round (replacing one kept for the id this round). */
    void keep(long id, V value) {
        if (nextSize > 0 && nextIds[nextSize - 1] == id) {
            nextValues[nextSize - 1] = value;
            return;
        }
        if (nextSize > 0 && nextIds[nextSize - 1] > id) nextSorted = false;
        if (nextSize == nextIds.length) {
            nextIds = Arrays.copyOf(nextIds, nextSize * 2);
            nextValues = Arrays.copyOf(nextValues, nextSize * 2);
        }
        nextIds[nextSize] = id;
        nextValues[nextSize++] = value;
    }

    /** Ends the round: what was kept in it is what the next round finds. */
    void endRound() {
        if (!nextSorted) sortNext();
        long[] oldIds = ids;
        Object[] oldValues = values;
        Arrays.fill(oldValues, 0, size, null); // let go of last round's values
        ids = nextIds;
        values = nextValues;
        size = nextSize;
        nextIds = oldIds.length >= 16 ? oldIds : new long[16];
        nextValues = oldValues.length >= 16 ? oldValues : new Object[16];
        nextSize = 0;
        nextSorted = true;
        cursor = 0;
    }

    /** Sorts what was kept by id; of an id kept more than once, the last value counts. */
    private void sortNext() {
        Integer[] order = new Integer[nextSize];
        for (int i = 0; i < nextSize; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> nextIds[a] != nextIds[b] ? Long.compare(nextIds[a], nextIds[b]) : Integer.compare(a, b));
        long[] sortedIds = new long[Math.max(16, nextSize)];
        Object[] sortedValues = new Object[sortedIds.length];
        int n = 0;
        for (int i : order) {
            if (n > 0 && sortedIds[n - 1] == nextIds[i]) n--; // a later value for the same id
            sortedIds[n] = nextIds[i];
            sortedValues[n++] = nextValues[i];
        }
        nextIds = sortedIds;
        nextValues = sortedValues;
        nextSize = n;
    }
}
