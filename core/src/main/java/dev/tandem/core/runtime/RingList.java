package dev.tandem.core.runtime;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

/**
 * A list in a ring buffer: constant-time access by index, and inserting or removing at index i moves the shorter
 * side, min(i, size - i) elements, instead of everything after i. The waiting queue is one ({@link WaitingQueue}):
 * jobs arrive at its tail and start from near its head, and with an ArrayList every start from the head of a queue
 * of a hundred thousand jobs moved all of them (a third of FIFO's time on a million jobs).
 */
final class RingList<E> extends AbstractList<E> implements RandomAccess {
    private Object[] items = new Object[16];
    private int head;
    private int size;

    @Override public int size() { return size; }

    @SuppressWarnings("unchecked")
    @Override public E get(int index) {
        checkIndex(index, size);
        return (E) items[slot(index)];
    }

    @Override public E set(int index, E e) {
        E old = get(index);
        items[slot(index)] = e;
        return old;
    }

    @Override public void add(int index, E e) {
        checkIndex(index, size + 1);
        if (size == items.length) grow();
        if (index < size / 2) { // move the first `index` elements one slot towards the front
            head = (head - 1) & (items.length - 1);
            moveTowardsFront(1, index);
        } else { // move the elements from `index` on one slot towards the back
            moveTowardsBack(index, size - index);
        }
        items[slot(index)] = e;
        size++;
        modCount++;
    }

    @Override public E remove(int index) {
        E old = get(index);
        if (index < size / 2) {
            moveTowardsBack(0, index);
            items[head] = null;
            head = (head + 1) & (items.length - 1);
        } else {
            moveTowardsFront(index + 1, size - index - 1);
            items[slot(size - 1)] = null;
        }
        size--;
        modCount++;
        return old;
    }

    /*
     * The moves copy runs of slots that do not wrap around the ring's end with System.arraycopy (which may overlap):
     * a job suspended in the middle of a long queue moves thousands of references, and slot by slot that was a quarter
     * of Tiresias' time on 100,000 jobs.
     */

    /** Moves the {@code count} elements from logical index {@code from} on one slot towards the front. */
    private void moveTowardsFront(int from, int count) {
        int mask = items.length - 1;
        while (count > 0) {
            int src = slot(from), dst = (src - 1) & mask;
            int n = Math.min(count, Math.min(items.length - src, items.length - dst));
            System.arraycopy(items, src, items, dst, n);
            from += n;
            count -= n;
        }
    }

    /** Moves the {@code count} elements from logical index {@code from} on one slot towards the back. */
    private void moveTowardsBack(int from, int count) {
        int mask = items.length - 1;
        while (count > 0) {
            int srcLast = slot(from + count - 1), dstLast = (srcLast + 1) & mask;
            int n = Math.min(count, Math.min(srcLast + 1, dstLast + 1));
            System.arraycopy(items, srcLast - n + 1, items, dstLast - n + 1, n);
            count -= n;
        }
    }

    @Override public void clear() {
        Arrays.fill(items, null);
        head = 0;
        size = 0;
        modCount++;
    }

    private int slot(int index) { return (head + index) & (items.length - 1); }

    /** Doubles the ring (its length stays a power of two), laying the elements out from slot 0. */
    private void grow() {
        Object[] bigger = new Object[items.length * 2];
        for (int k = 0; k < size; k++) bigger[k] = items[slot(k)];
        items = bigger;
        head = 0;
    }

    private static void checkIndex(int index, int bound) {
        if (index < 0 || index >= bound) throw new IndexOutOfBoundsException("index " + index + ", size " + (bound));
    }
}
