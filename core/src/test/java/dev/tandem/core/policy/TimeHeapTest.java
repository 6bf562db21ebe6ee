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

    /** An item that keeps track of its place, as the simulator's events do. */
    private static final class Slot implements TimeHeap.Placed {
        final int id;
        int index = -1;

        Slot(int id) { this.id = id; }

        @Override public void placedAt(int index) { this.index = index; }
    }

    /**
     * Thousands of random adds, moves, removals and polls of items that keep track of their place: the same order as a
     * list kept sorted by (time, when added or last moved), and every item knows where it is (or that it is out).
     */
    @Test
    void movesAndRemovalsKeepTheOrderOfAPlainSortedList() {
        SplittableRandom r = new SplittableRandom(7);
        TimeHeap<Slot> h = new TimeHeap<>();
        record Ref(double time, long seq, int id) {}
        java.util.List<Ref> ref = new java.util.ArrayList<>();
        java.util.List<Slot> slots = new java.util.ArrayList<>();
        long seq = 0;
        for (int step = 0; step < 20_000; step++) {
            int op = r.nextInt(4);
            double time = r.nextInt(50); // few distinct times: ties are common
            Slot pick = slots.isEmpty() ? null : slots.get(r.nextInt(slots.size()));
            if (op == 0 || pick == null) {
                Slot added = new Slot(slots.size());
                slots.add(added);
                h.add(time, added);
                ref.add(new Ref(time, seq++, added.id));
            } else if (op == 1 && pick.index >= 0) {
                h.move(pick.index, time);
                ref.removeIf(x -> x.id() == pick.id);
                ref.add(new Ref(time, seq++, pick.id));
            } else if (op == 2 && pick.index >= 0) {
                h.remove(pick.index);
                ref.removeIf(x -> x.id() == pick.id);
            } else if (op == 3) {
                ref.sort(Comparator.comparingDouble(Ref::time).thenComparingLong(Ref::seq));
                Slot out = h.poll();
                if (ref.isEmpty()) {
                    assertThat(out).isNull();
                } else {
                    assertThat(out.id).as("step %d", step).isEqualTo(ref.remove(0).id());
                    assertThat(out.index).isEqualTo(-1);
                }
            }
            assertThat(h.size()).isEqualTo(ref.size());
            if (step % 1_000 == 0) {
                java.util.Set<Integer> in = new java.util.HashSet<>();
                for (Ref x : ref) in.add(x.id());
                for (Slot sl : slots) assertThat(sl.index >= 0).as("slot %d in the heap", sl.id).isEqualTo(in.contains(sl.id));
            }
        }
    }
}
