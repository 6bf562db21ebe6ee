package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soonest drain for a gang (what tandem's critical-path rule compares a partner's slowdown with) is the drain of
 * the GPUs a reservation would choose, worked out per GPU once however many gang sizes ask.
 */
class ReservationDrainsTest {
    /** What a reservation would hold for the job, and when those GPUs drain: the rule the shortcut must agree with. */
    private static double chosenDrain(SchedulerSnapshot s, ClusterView view, Job job) {
        return Reservation.drainingSoonest(s, view, job).map(g -> Reservation.drainSeconds(s, view, g)).orElse(Double.POSITIVE_INFINITY);
    }

    @Test
    void theSoonestDrainIsThatOfTheGpusAReservationWouldChooseOnRandomClusters() {
        SplittableRandom rnd = new SplittableRandom(7);
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
            Reservation.Drains drains = new Reservation.Drains(s, view);
            List<Job> asks = new ArrayList<>();
            for (int k : new int[] {1, 2, 4}) asks.add(f.job("q" + k, a, k, 100, 0));
            asks.add(f.job("big", b, 1, 100, 0)); // a larger memory need, which every node still meets
            for (Job q : asks) assertThat(drains.soonestFor(q)).as("trial %d, %d GPU(s)", trial, q.gpus()).isEqualTo(chosenDrain(s, view, q));
            // the round changes the view: a job placed on a GPU (not draining soon), a running one taken off
            view.place(f.job("placed", a, 1, 100, 0), List.of(rnd.nextInt(12)));
            if (!f.running.isEmpty()) view.remove(f.running.get(rnd.nextInt(f.running.size())).id());
            for (Job q : asks) assertThat(drains.soonestFor(q)).as("trial %d after changes, %d GPU(s)", trial, q.gpus()).isEqualTo(chosenDrain(s, view, q));
        }
    }

    @Test
    void noNodeWithRoomForTheJobMeansNoDrainAtAll() {
        Fixture f = new Fixture(2, 2, 24576);
        WorkloadSignature a = f.profile("A", 50, 4000), huge = f.profile("H", 50, 40000);
        SchedulerSnapshot s = f.snapshot();
        Reservation.Drains drains = new Reservation.Drains(s, new ClusterView(s));
        assertThat(drains.soonestFor(f.job("wide", a, 4, 100, 0))).isEqualTo(Double.POSITIVE_INFINITY); // no node has 4 GPUs
        assertThat(drains.soonestFor(f.job("huge", huge, 1, 100, 0))).isEqualTo(Double.POSITIVE_INFINITY); // no GPU has the memory
        assertThat(drains.soonestFor(f.job("fits", a, 2, 100, 0))).isZero(); // all idle
    }
}
