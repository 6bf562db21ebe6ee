package dev.tandem.core.policy;

import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Items by the time they are due, and among equal times in the order they were added. */
class TimeHeapTest {
    private record Added(double time, long order, String item) {}

    @Test
    void itemsComeOutByTimeThenInTheOrderTheyWereAdded() {
        TimeHeap<String> h = new TimeHeap<>();
        h.add(5, "late");
        h.add(1, "first at 1");
        h.add(1, "second at 1");
        h.add(0.5, "earliest");
        assertThat(h.peek()).isEqualTo("earliest");
        assertThat(h.peekTime()).isEqualTo(0.5);
        assertThat(h.poll()).isEqualTo("earliest");
        assertThat(h.poll()).isEqualTo("first at 1");
        assertThat(h.poll()).isEqualTo("second at 1");
        assertThat(h.poll()).isEqualTo("late");
        assertThat(h.poll()).isNull();
        assertThat(h.peek()).isNull();
        assertThat(h.peekTime()).isEqualTo(Double.POSITIVE_INFINITY);
        h.add(3, "x");
        h.clear();
        assertThat(h.isEmpty()).isTrue();
    }

    /** Random adds and polls, with many ties of time and growth past the first arrays, against a reference heap. */
    @Test
    void agreesWithAReferenceHeapOnRandomWork() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int trial = 0; trial < 50; trial++) {
            TimeHeap<String> h = new TimeHeap<>();
            PriorityQueue<Added> ref = new PriorityQueue<>(Comparator.comparingDouble(Added::time).thenComparingLong(Added::order));
            long order = 0;
            double now = 0;
            for (int step = 0; step < 3_000; step++) {
                if (ref.isEmpty() || rnd.nextInt(3) > 0) {
                    double t = now + rnd.nextInt(20); // whole seconds: many items share an instant
                    h.add(t, "e" + order);
                    ref.add(new Added(t, order, "e" + order));
                    order++;
                } else {
                    Added want = ref.poll();
                    assertThat(h.peekTime()).isEqualTo(want.time());
                    assertThat(h.poll()).isEqualTo(want.item());
                    now = want.time();
                }
                assertThat(h.size()).isEqualTo(ref.size());
                assertThat(h.peekTime()).isEqualTo(ref.isEmpty() ? Double.POSITIVE_INFINITY : ref.peek().time());
            }
        }
    }
}
