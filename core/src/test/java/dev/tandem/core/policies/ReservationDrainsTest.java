package dev.tandem.core.policies;

import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.Node;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GPUs a reservation chooses for a gang, and whether GPUs for it drain soon enough (what tandem's critical-path rule
 * compares a partner's slowdown with, answered without looking at every node), each GPU's drain worked out once however
 * many gang sizes ask, against a plain search.
 */
class ReservationDrainsTest {
    /** What a reservation should hold for the job, found the plain way, and when those GPUs drain. */
    private record Choice(List<Integer> gpus, double drain) {}

    /**
     * Per node with enough GPUs and memory: its GPUs by drain (the lower id among equals), the first k; of those, the
     * first node's whose last drains soonest. Each GPU's drain is the reservation's own look at its occupants.
     */
    private static Choice plainChoice(SchedulerSnapshot s, ClusterView view, Job job) {
        long need = s.memoryRule().charged(s.memoryNeed(job));
        Choice best = new Choice(null, Double.POSITIVE_INFINITY);
        for (Node node : s.cluster().nodes()) {
            if (node.gpus().size() < job.gpus() || node.gpus().get(0).type().memoryMiB() < need) continue;
            List<Integer> byDrain = node.gpus().stream().map(Gpu::id)
                    .sorted(Comparator.comparingDouble((Integer g) -> Reservation.drainSeconds(s, view, List.of(g))).thenComparingInt(g -> g)).toList();
            List<Integer> chosen = byDrain.subList(0, job.gpus());
            double drain = Reservation.drainSeconds(s, view, chosen);
            if (drain < best.drain()) best = new Choice(chosen.stream().sorted().toList(), drain);
        }
        return best;
    }

    private static void agrees(Reservation.Drains drains, SchedulerSnapshot s, ClusterView view, Job q, String when) {
        Choice plain = plainChoice(s, view, q);
        soonestIs(drains, q, plain.drain(), when);
        var room = drains.soonest(q);
        assertThat(room.map(Reservation.Drains.Room::gpus)).as("%s, %d GPU(s)", when, q.gpus()).isEqualTo(java.util.Optional.ofNullable(plain.gpus()));
        room.ifPresent(r -> assertThat(r.drainSeconds()).as("%s, %d GPU(s): the drain of the GPUs chosen", when, q.gpus()).isEqualTo(plain.drain()));
    }

    /**
     * The soonest drain for q is {@code expected}: GPUs are free at it and not before it, asked the way tandem asks (a
     * time accepted with every time below it): first by a threshold the first node with room meets (the scan stops
     * there), then by thresholds that only the soonest drain decides (the scan taken up again where it stopped).
     */
    private static void soonestIs(Reservation.Drains drains, Job q, double expected, String when) {
        String as = when + ", " + q.gpus() + " GPU(s)";
        if (expected == Double.POSITIVE_INFINITY) {
            assertThat(drains.freeWhen(q, w -> w < Double.POSITIVE_INFINITY)).as(as).isFalse();
            return;
        }
        assertThat(drains.freeWhen(q, w -> w <= 1e12)).as(as).isTrue(); // the first node with room answers
        assertThat(drains.freeWhen(q, w -> w < 0)).as(as).isFalse();
        assertThat(drains.freeWhen(q, w -> w < expected)).as(as).isFalse();
        assertThat(drains.freeWhen(q, w -> w <= expected)).as(as).isTrue();
    }

    @Test
    void theSoonestDrainIsThatOfTheGpusAReservationWouldChooseOnRandomClusters() {
        SplittableRandom rnd = new SplittableRandom(7);
        Reservation.Drains shared = new Reservation.Drains(); // one per policy: begun anew on each trial's view
        for (int trial = 0; trial < 300; trial++) {
            Fixture f = new Fixture(3, 4, 24576);
            WorkloadSignature a = f.profile("A", 50, 4000), b = f.profile("B", 40, 20000);
            int id = 0;
            for (int g = 0; g < 12; g++) {
                int tenants = rnd.nextInt(10) < 3 ? 0 : rnd.nextInt(10) < 8 ? 1 : 2; // idle, alone or paired
                for (int t = 0; t < tenants; t++) {
                    Job j = f.job("r" + id++, a, 1, 1e6, 0);
                    double observed = rnd.nextBoolean() ? Double.NaN : 0.2 + rnd.nextDouble();
                    f.running(j, List.of(g), 100 + rnd.nextInt(5000), 0, observed);
                }
            }
            if (rnd.nextBoolean()) f.running(f.job("gang" + id, a, 4, 1e6, 0), List.of(8, 9, 10, 11), 100 + rnd.nextInt(5000), 0, Double.NaN);
            SchedulerSnapshot s = f.snapshot();
            ClusterView view = new ClusterView(s);
            Reservation.Drains drains = shared.begin(s, view);
            List<Job> asks = new ArrayList<>();
            for (int k : new int[] {1, 2, 4}) asks.add(f.job("q" + k, a, k, 100, 0));
            asks.add(f.job("big", b, 1, 100, 0)); // a larger memory need, which every node still meets
            for (Job q : asks) agrees(drains, s, view, q, "trial " + trial);
            // the round changes the view: a job placed on a GPU (not draining soon), a running one taken off
            view.place(f.job("placed", a, 1, 100, 0), List.of(rnd.nextInt(12)));
            if (!f.running.isEmpty()) view.remove(f.running.get(rnd.nextInt(f.running.size())).id());
            for (Job q : asks) agrees(drains, s, view, q, "trial " + trial + " after changes");
        }
    }

    @Test
    void noNodeWithRoomForTheJobMeansNoDrainAtAll() {
        Fixture f = new Fixture(2, 2, 24576);
        WorkloadSignature a = f.profile("A", 50, 4000), huge = f.profile("H", 50, 40000);
        SchedulerSnapshot s = f.snapshot();
        Reservation.Drains drains = new Reservation.Drains().begin(s, new ClusterView(s));
        soonestIs(drains, f.job("wide", a, 4, 100, 0), Double.POSITIVE_INFINITY, "no node has 4 GPUs");
        soonestIs(drains, f.job("huge", huge, 1, 100, 0), Double.POSITIVE_INFINITY, "no GPU has the memory");
        soonestIs(drains, f.job("fits", a, 2, 100, 0), 0, "all idle");
    }

    @Test
    void amongGpusThatDrainEquallySoonTheFirstNodeAndTheLowerIdsAreChosen() {
        Fixture f = new Fixture(2, 2, 24576);
        WorkloadSignature a = f.profile("A", 50, 4000);
        for (int g = 0; g < 4; g++) f.running(f.job("r" + g, a, 1, 1e6, 0), List.of(g), 1_000, 0, Double.NaN); // all drain in 1,000 s
        SchedulerSnapshot s = f.snapshot();
        Reservation.Drains drains = new Reservation.Drains().begin(s, new ClusterView(s));
        assertThat(drains.soonest(f.job("one", a, 1, 100, 0)).map(Reservation.Drains.Room::gpus)).contains(List.of(0));
        assertThat(drains.soonest(f.job("two", a, 2, 100, 0)).map(Reservation.Drains.Room::gpus)).contains(List.of(0, 1));
        soonestIs(drains, f.job("two", a, 2, 100, 0), 1_000, "all drain in 1,000 s");
    }
}
