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
}
