package dev.tandem.core.runtime;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RingListTest {
    /** Random inserts and removals at the ends and anywhere, through several growths and wrap-arounds: as an ArrayList. */
    @Test void behavesAsAnArrayListUnderRandomInsertsAndRemovals() {
        Random rnd = new Random(7);
        RingList<Integer> ring = new RingList<>();
        List<Integer> expected = new ArrayList<>();
        for (int step = 0; step < 200_000; step++) {
            int n = expected.size();
            int op = rnd.nextInt(10);
            if (n == 0 || op < 5) { // insert: mostly at the tail, some at the head or anywhere
                int at = switch (rnd.nextInt(3)) { case 0 -> n; case 1 -> 0; default -> rnd.nextInt(n + 1); };
                ring.add(at, step);
                expected.add(at, step);
            } else if (op < 9) {
                int at = switch (rnd.nextInt(3)) { case 0 -> 0; case 1 -> n - 1; default -> rnd.nextInt(n); };
                assertEquals(expected.remove(at), ring.remove(at));
            } else {
                int at = rnd.nextInt(n);
                assertEquals(expected.set(at, -step), ring.set(at, -step));
            }
            if (step % 997 == 0) assertEquals(expected, ring, "step " + step);
        }
        assertEquals(expected, ring);
        ring.clear();
        assertEquals(List.of(), ring);
        ring.add(0, 1);
        assertEquals(List.of(1), ring);
    }

    @Test void refusesIndexesOutsideTheList() {
        RingList<String> ring = new RingList<>();
        ring.add("a");
        assertThrows(IndexOutOfBoundsException.class, () -> ring.get(1));
        assertThrows(IndexOutOfBoundsException.class, () -> ring.get(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> ring.add(3, "b"));
        assertThrows(IndexOutOfBoundsException.class, () -> ring.remove(1));
    }

    @Test void anIteratorNoticesAChangeUnderIt() {
        RingList<String> ring = new RingList<>();
        ring.add("a");
        ring.add("b");
        Iterator<String> it = ring.iterator();
        it.next();
        ring.remove(0);
        assertThrows(ConcurrentModificationException.class, it::next);
    }
}
