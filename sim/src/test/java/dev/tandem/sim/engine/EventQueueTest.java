package dev.tandem.sim.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The simulator's future events: earliest first, and events at one instant in the order they were scheduled. */
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
}
