package dev.tandem.sim.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The simulator's future events: earliest first, and events at one instant in the order they were scheduled; an event
 * moved or withdrawn before it comes up is as if it had been withdrawn and (when moved) pushed anew.
 */
class EventQueueTest {
    @Test
    void eventsComeOutByTimeThenInTheOrderTheyWereScheduled() {
        EventQueue<String> q = new EventQueue<>();
        q.push(5, 1, "late", 7);
        q.push(1, 2, "first at 1", 0);
        q.push(1, 3, "second at 1", 0);
        q.push(0.5, 4, "earliest", 9);
        assertThat(q.size()).isEqualTo(4);
        assertThat(q.peekTime()).isEqualTo(0.5);
        List<String> out = new ArrayList<>();
        EventQueue.Event<String> e;
        while ((e = q.poll()) != null) out.add(e.time() + "/" + e.payload() + "/" + e.type() + "/" + e.token());
        assertThat(out).containsExactly("0.5/earliest/4/9", "1.0/first at 1/2/0", "1.0/second at 1/3/0", "5.0/late/1/7");
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.peekTime()).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void aMovedEventGoesAfterThoseAlreadyAtItsNewTimeAndAWithdrawnOneNeverComesUp() {
        EventQueue<String> q = new EventQueue<>();
        var a = q.push(3, 1, "a", 1);
        q.push(2, 1, "b", 0);
        var c = q.push(4, 1, "c", 0);
        q.push(9, 1, "d", 0);
        a = q.reschedule(a, 2, 1, "a", 2); // to b's time: after b, which was scheduled first
        q.withdraw(c);
        q.withdraw(c); // twice: nothing more happens
        assertThat(q.size()).isEqualTo(3);
        List<String> out = new ArrayList<>();
        EventQueue.Event<String> e;
        while ((e = q.poll()) != null) out.add(e.time() + "/" + e.payload() + "/" + e.token());
        assertThat(out).containsExactly("2.0/b/0", "2.0/a/2", "9.0/d/0");
        // an event that already came up is scheduled anew when moved
        var again = q.reschedule(a, 1, 1, "a", 3);
        assertThat(again).isNotSameAs(a);
        assertThat(q.poll().token()).isEqualTo(3);
        assertThatThrownBy(() -> q.reschedule(q.push(1, 1, "x", 0), 2, 2, "x", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Thousands of random pushes, moves, withdrawals and polls: the same order as a list kept sorted by (time, scheduling). */
    @Test
    void movesAndWithdrawalsKeepTheOrderOfAPlainSortedList() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        EventQueue<Integer> q = new EventQueue<>();
        record Ref(double time, long seq, int id) {}
        List<Ref> ref = new ArrayList<>();
        List<EventQueue.Event<Integer>> handles = new ArrayList<>();
        long seq = 0;
        for (int step = 0; step < 20_000; step++) {
            int op = r.nextInt(4);
            double time = r.nextInt(50); // few distinct times: ties are common
            if (op == 0 || handles.isEmpty()) {
                int id = handles.size();
                handles.add(q.push(time, 0, id, 0));
                ref.add(new Ref(time, seq++, id));
            } else if (op == 1) {
                int id = r.nextInt(handles.size());
                handles.set(id, q.reschedule(handles.get(id), time, 0, handles.get(id).payload(), 0)); // its own payload, not a new box
                ref.removeIf(x -> x.id() == id);
                ref.add(new Ref(time, seq++, id));
            } else if (op == 2) {
                int id = r.nextInt(handles.size());
                q.withdraw(handles.get(id));
                ref.removeIf(x -> x.id() == id);
            } else {
                ref.sort(java.util.Comparator.comparingDouble(Ref::time).thenComparingLong(Ref::seq));
                EventQueue.Event<Integer> e = q.poll();
                if (ref.isEmpty()) {
                    assertThat(e).isNull();
                } else {
                    Ref expected = ref.remove(0);
                    assertThat(e.payload()).as("step %d", step).isEqualTo(expected.id());
                    assertThat(e.time()).isEqualTo(expected.time());
                }
            }
            assertThat(q.size()).isEqualTo(ref.size());
        }
    }
}
