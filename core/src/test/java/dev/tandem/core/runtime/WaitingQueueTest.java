package dev.tandem.core.runtime;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.PendingJob;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The waiting jobs in the world's order, and the journal of their changes that a policy follows. */
class WaitingQueueTest {
    static final WorkloadSignature SIG = new WorkloadSignature("M", "D", 32, false);
    static final Comparator<PendingJob> BY_SUBMIT = Comparator.comparingDouble(p -> p.job().submitTime());

    static PendingJob view(int submit) {
        return new PendingJob(new Job("j" + submit, "u", submit, 1, SIG, 100, 1000, 0), submit, 0, 100, 0, true, submit);
    }

    /** What the journal recorded since {@code from}: true for each view that entered, false for each that left. */
    static Map<PendingJob, Boolean> changes(WaitingQueue q, long from) {
        Map<PendingJob, Boolean> out = new IdentityHashMap<>();
        assertThat(q.journal().readSince(from, out::put)).isTrue();
        return out;
    }

    @Test
    void jobsEnterAtTheirPlaceAndLeaveAndTheJournalRecordsBoth() {
        WaitingQueue q = new WaitingQueue(BY_SUBMIT, 64);
        PendingJob a = view(1), b = view(2), c = view(3);
        q.enter(a);
        q.enter(c);
        q.enter(b); // back in its place, not at the tail
        assertThat(q.jobs()).containsExactly(a, b, c);
        q.leave(b);
        assertThat(q.jobs()).containsExactly(a, c);
        assertThat(q.journal().count()).isEqualTo(4);
        assertThat(changes(q, 3)).containsExactly(Map.entry(b, false));
        assertThatThrownBy(() -> q.leave(view(1))).as("another view of a queued job").hasMessageContaining("queue lost job j1");
        assertThatThrownBy(() -> q.jobs().add(b)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void becomingAWholeQueueJournalsTheViewsThatLeftAndEntered() {
        WaitingQueue q = new WaitingQueue(BY_SUBMIT, 64);
        PendingJob a = view(1), b = view(2), c = view(3), d = view(4);
        assertThat(q.becomes(List.of(a, b, c))).isTrue();
        assertThat(q.jobs()).containsExactly(a, b, c);
        long at = q.journal().count();
        PendingJob b2 = view(2); // what the policy sees of job 2 changed: a new view
        assertThat(q.becomes(List.of(b2, c, d))).isTrue();
        assertThat(q.jobs()).containsExactly(b2, c, d);
        assertThat(changes(q, at)).containsOnly(Map.entry(a, false), Map.entry(b, false), Map.entry(b2, true), Map.entry(d, true));
        at = q.journal().count();
        assertThat(q.becomes(List.of(b2, c, d))).isTrue();
        assertThat(q.journal().count()).as("nothing changed, nothing recorded").isEqualTo(at);
        // reordered by queue rules (a priority, fair share): refused, the queue stays as it was and nothing is recorded
        assertThat(q.becomes(List.of(d, b2))).isFalse();
        assertThat(q.jobs()).containsExactly(b2, c, d);
        assertThat(q.journal().count()).isEqualTo(at);
        assertThat(q.becomes(List.of())).isTrue();
        assertThat(q.isEmpty()).isTrue();
        assertThat(changes(q, at)).containsOnly(Map.entry(b2, false), Map.entry(c, false), Map.entry(d, false));
    }

    /** Replaying the journal onto the last queue gives the new one, after each of many random rounds. */
    @Test
    void theJournalTakesAFollowerFromEachQueueToTheNext() {
        WaitingQueue q = new WaitingQueue(BY_SUBMIT, 1 << 12);
        Random random = new Random(11);
        List<PendingJob> followed = new ArrayList<>();
        for (int round = 0; round < 300; round++) {
            List<PendingJob> next = new ArrayList<>();
            for (PendingJob p : q.jobs()) {
                int r = random.nextInt(10);
                if (r == 0) continue; // started
                next.add(r == 1 ? view((int) p.job().submitTime()) : p); // a new view of it
            }
            int base = next.isEmpty() ? round * 10 : (int) next.getLast().job().submitTime();
            for (int k = 1; k <= random.nextInt(4); k++) next.add(view(base + k)); // submitted
            assertThat(q.becomes(next)).isTrue();
            Map<PendingJob, Boolean> changed = new IdentityHashMap<>();
            q.journal().readSince(followedAt, changed::put);
            followedAt = q.journal().count();
            followed.removeIf(p -> Boolean.FALSE.equals(changed.get(p)));
            changed.forEach((p, in) -> { if (in) followed.add(p); });
            followed.sort(BY_SUBMIT);
            assertThat(followed).containsExactlyElementsOf(q.jobs());
        }
    }

    private long followedAt;
}
