package dev.tandem.server.sched;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The round cache answers as the pair of hash maps it replaces: last round's values for the ids kept in it. */
class RoundCacheTest {
    @Test
    void answersAsLastRoundsMapOnRandomRounds() {
        Random rnd = new Random(11);
        RoundCache<String> cache = new RoundCache<>();
        Map<Long, String> last = new HashMap<>(), next = new HashMap<>();
        for (int round = 0; round < 400; round++) {
            List<Long> asked = new ArrayList<>();
            int n = rnd.nextInt(80);
            for (int k = 0; k < n; k++) asked.add((long) rnd.nextInt(120));
            // most rounds ask in id order, as the queue comes; some out of order, some with an id asked twice
            if (round % 5 != 0) Collections.sort(asked);
            for (long id : asked) {
                assertThat(cache.get(id)).as("round " + round + ", id " + id).isEqualTo(last.get(id));
                if (rnd.nextInt(4) > 0) {
                    String v = round + ":" + id + ":" + rnd.nextInt(1000);
                    cache.keep(id, v);
                    next.put(id, v);
                }
            }
            cache.endRound();
            last = next;
            next = new HashMap<>();
        }
    }

    /** As the snapshot builder uses it: a value kept this round is next round's, whatever last round held. */
    @Test
    void whatWasNotKeptIsForgotten() {
        RoundCache<String> cache = new RoundCache<>();
        cache.keep(1, "a");
        cache.keep(5, "b");
        cache.endRound();
        assertThat(cache.get(1)).isEqualTo("a");
        cache.keep(1, "a");
        cache.endRound();
        assertThat(cache.get(1)).isEqualTo("a");
        assertThat(cache.get(5)).isNull();
    }
}
