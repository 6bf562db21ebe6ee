package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.policy.Decision;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A world's record of the GPUs a policy holds for waiting gangs, and the one check of a hold. */
class ReservationsTest {
    static final Cluster TWO_NODES = Cluster.homogeneous(2, 4, new GpuType("T", 24576), 8, 1 << 16).withGangsOnOneNode();

    static Decision.Reserve hold(String job, List<Integer> gpus, double readyIn) {
        return new Decision.Reserve(job, gpus, readyIn, "test");
    }

    @Test
    void aHoldLastsWhileTheDecisionsReissueItAndBeginsAgainOnlyWhenItMoves() {
        Reservations r = new Reservations();
        Reservations.Changes first = r.decided(List.of(hold("g", List.of(0, 1), 300)), 100);
        assertThat(first.begun()).extracting(Reservations.Hold::jobId).containsExactly("g");
        assertThat(first.ended()).isEmpty();
        assertThat(r.on(1)).map(Reservations.Hold::readyAt).contains(400.0);
        assertThat(r.on(2)).isEmpty();
        // re-issued on the same GPUs: not new, it keeps when it began, and its expected free time follows the decision
        Reservations.Changes again = r.decided(List.of(hold("g", List.of(0, 1), 250)), 200);
        assertThat(again.begun()).isEmpty();
        assertThat(again.ended()).isEmpty();
        assertThat(r.forJob("g")).map(Reservations.Hold::since).contains(100.0);
        assertThat(r.forJob("g")).map(Reservations.Hold::readyAt).contains(450.0);
        // moved to other GPUs: the old hold ends, a new one begins, and the GPUs it left are free
        Reservations.Changes moved = r.decided(List.of(hold("g", List.of(4, 5), 50)), 300);
        assertThat(moved.begun()).extracting(Reservations.Hold::gpus).containsExactly(List.of(4, 5));
        assertThat(moved.ended()).extracting(Reservations.Hold::gpus).containsExactly(List.of(0, 1));
        assertThat(r.on(0)).isEmpty();
        assertThat(r.on(5)).map(Reservations.Hold::since).contains(300.0);
        // a decision without it ends it
        Reservations.Changes none = r.decided(List.of(), 400);
        assertThat(none.ended()).extracting(Reservations.Hold::jobId).containsExactly("g");
        assertThat(r.isEmpty()).isTrue();
        assertThat(r.on(4)).isEmpty();
    }

    @Test
    void aJobThatLeavesTheQueueTakesItsHoldWithIt() {
        Reservations r = new Reservations();
        r.decided(List.of(hold("g", List.of(0, 1), 300), hold("h", List.of(2, 3), 300)), 0);
        assertThat(r.left("g")).map(Reservations.Hold::gpus).contains(List.of(0, 1));
        assertThat(r.left("g")).isEmpty();
        assertThat(r.on(0)).isEmpty();
        assertThat(r.on(2)).map(Reservations.Hold::jobId).contains("h");
        assertThat(r.all()).extracting(Reservations.Hold::jobId).containsExactly("h");
        // the next decision's changes are against what is left: g is not ended twice
        assertThat(r.decided(List.of(), 10).ended()).extracting(Reservations.Hold::jobId).containsExactly("h");
    }

    @Test
    void aHoldIsForAWaitingJobOnGpusItCouldStartOnAndNotHeldTwice() {
        List<Decision.Reserve> none = List.of();
        assertThat(Reservations.refusal(hold("g", List.of(0, 1), 10), true, 2, TWO_NODES, none)).isEmpty();
        assertThat(Reservations.refusal(hold("g", List.of(0, 1), Double.POSITIVE_INFINITY), true, 2, TWO_NODES, none)).as("free time unknown").isEmpty();
        assertThat(Reservations.refusal(hold("g", List.of(0, 1), 10), false, 2, TWO_NODES, none))
                .contains("job g is not waiting: GPUs are held only for a job in the queue");
        assertThat(Reservations.refusal(hold("g", List.of(0), 10), true, 2, TWO_NODES, none)).contains("needs 2 GPU(s), decision gives 1");
        assertThat(Reservations.refusal(hold("g", List.of(3, 4), 10), true, 2, TWO_NODES, none)).hasValueSatisfying(w -> assertThat(w).contains("a job runs on one node"));
        assertThat(Reservations.refusal(hold("g", List.of(0, 9), 10), true, 2, TWO_NODES, none)).contains("GPU 9 does not exist");
        assertThat(Reservations.refusal(hold("g", List.of(0, 1), -1), true, 2, TWO_NODES, none))
                .contains("a hold's expected free time must be 0 or more seconds, not -1.0");
        assertThat(Reservations.refusal(hold("g", List.of(0, 1), Double.NaN), true, 2, TWO_NODES, none)).isPresent();
        List<Decision.Reserve> earlier = List.of(hold("f", List.of(1, 2), 10));
        assertThat(Reservations.refusal(hold("g", List.of(0, 1), 10), true, 2, TWO_NODES, earlier)).contains("GPU 1 is already held for job f");
        assertThat(Reservations.refusal(hold("f", List.of(4, 5), 10), true, 2, TWO_NODES, earlier)).contains("job f is given two holds in one decision");
        // a world that skipped the check finds out
        assertThatThrownBy(() -> new Reservations().decided(List.of(hold("f", List.of(1, 2), 10), hold("g", List.of(0, 1), 10)), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("GPU 1 is already held for job f");
    }
}
