package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.policy.Occupancy;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The runtime's ledger of who holds which GPUs, which the simulator and the daemon both keep their jobs in. */
class PlacementsTest {
    /** Two nodes of 4 GPUs: GPUs 0-3 on node 0, 4-7 on node 1. */
    static final Cluster TWO_NODES = Cluster.homogeneous(2, 4, new GpuType("T", 24576), 8, 1 << 16).withGangsOnOneNode();

    static final WorkloadSignature SIG = new WorkloadSignature("M", "D", 32, false);

    record Placed(String id) {}

    static Placements<String, Placed> ledger() {
        return new Placements<>(TWO_NODES, Placed::id);
    }

    @Test
    void countsIdleBusyAndSharedGpusAsJobsComeAndGo() {
        Placements<String, Placed> p = ledger();
        Placed a = new Placed("a"), b = new Placed("b"), c = new Placed("c");
        p.place(a, new int[] {0, 1});
        assertThat(p.idleTotal()).isEqualTo(6);
        assertThat(p.idleOnNode(0)).isEqualTo(2);
        assertThat(p.idleOnNode(1)).isEqualTo(4);
        assertThat(p.nodeWithIdle(2, 0)).isZero();
        assertThat(p.nodeWithIdle(4, 0)).isEqualTo(1);
        assertThat(p.busyGpus()).isEqualTo(2);
        assertThat(p.sharedGpus()).isZero();

        p.place(b, List.of(1, 0)); // a pair on the same two GPUs: nothing more is busy, both are shared
        assertThat(p.idleTotal()).isEqualTo(6);
        assertThat(p.busyGpus()).isEqualTo(2);
        assertThat(p.sharedGpus()).isEqualTo(2);
        assertThat(p.on(0)).containsExactly(a, b);
        assertThat(p.keysOn(1)).containsExactly("a", "b");
        assertThat(p.on(new int[] {0, 1}, a)).containsExactly(b);
        assertThat(p.on(List.of(0, 1), null)).containsExactly(a, b);

        p.place(c, new int[] {4});
        assertThat(p.all()).containsExactly(a, b, c);
        assertThat(p.get("c")).isSameAs(c);
        assertThat(p.gpusOf("b")).containsExactly(1, 0);

        assertThat(p.remove(a)).isTrue();
        assertThat(p.remove(a)).as("removed twice").isFalse();
        assertThat(p.on(0)).containsExactly(b);
        assertThat(p.sharedGpus()).isZero();
        assertThat(p.busyGpus()).isEqualTo(3);
        assertThat(p.idleTotal()).isEqualTo(5);
        assertThat(p.get("a")).isNull();
        assertThat(p.gpusOf("a")).isEmpty();

        // placed again later: last in the order of placement, as a world hands its running jobs to a policy
        p.place(a, new int[] {2});
        assertThat(p.all()).containsExactly(b, c, a);
    }

    @Test
    void refusesAThirdJobOnAGpuAndBadGpusWithoutChangingAnything() {
        Placements<String, Placed> p = ledger();
        Placed a = new Placed("a"), b = new Placed("b");
        p.place(a, new int[] {0, 1});
        p.place(b, new int[] {1});
        assertThatThrownBy(() -> p.place(new Placed("c"), new int[] {2, 1}))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("GPU 1").hasMessageContaining("[a, b]").hasMessageContaining("at most 2");
        assertThat(p.on(2)).as("nothing half placed").isEmpty();
        assertThat(p.idleTotal()).isEqualTo(6);
        assertThatThrownBy(() -> p.place(a, new int[] {3})).hasMessageContaining("placed already");
        assertThatThrownBy(() -> p.place(new Placed("d"), new int[] {8})).hasMessageContaining("no GPU 8");
        assertThatThrownBy(() -> p.place(new Placed("d"), new int[] {3, 3})).hasMessageContaining("twice");
        assertThatThrownBy(() -> p.place(new Placed("d"), new int[0])).hasMessageContaining("no GPU");
        assertThat(p.size()).isEqualTo(2);
        assertThat(p.all()).containsExactly(a, b);
    }

    @Test
    void aDaemonAdoptsWhatItFindsRunningEvenBeyondTheLimitAndPlacesNothingMoreThere() {
        Placements<String, Placed> p = ledger();
        assertThat(p.adopt(new Placed("a"), List.of(0))).isTrue();
        assertThat(p.adopt(new Placed("b"), List.of(0))).isTrue();
        assertThat(p.adopt(new Placed("c"), List.of(0, 1))).as("a third process on GPU 0").isFalse();
        assertThat(p.keysOn(0)).containsExactly("a", "b", "c");
        assertThat(p.sharedGpus()).isEqualTo(1);
        assertThatThrownBy(() -> p.place(new Placed("d"), new int[] {0})).isInstanceOf(IllegalStateException.class);
        p.remove(p.get("a"));
        assertThat(p.sharedGpus()).as("still two on GPU 0").isEqualTo(1);
        p.remove(p.get("b"));
        assertThat(p.sharedGpus()).isZero();
        assertThat(p.busyGpus()).isEqualTo(2);
    }

    /** Against indexes built from scratch ({@link Occupancy#of}) after each of many random placements and removals. */
    @Test
    void agreesWithIndexesBuiltFromTheRunningJobsAfterEveryChange() {
        Cluster cluster = Cluster.homogeneous(3, 4, new GpuType("T", 24576), 8, 1 << 16);
        Placements<String, Placed> p = new Placements<>(cluster, Placed::id);
        Random random = new Random(7);
        List<Placed> placed = new ArrayList<>();
        List<int[]> where = new ArrayList<>();
        for (int step = 0; step < 2_000; step++) {
            if (!placed.isEmpty() && random.nextInt(3) == 0) {
                int i = random.nextInt(placed.size());
                assertThat(p.remove(placed.remove(i))).isTrue();
                where.remove(i);
            } else {
                int node = random.nextInt(3), width = 1 << random.nextInt(3), first = random.nextInt(4 - width + 1);
                int[] gpus = new int[width];
                for (int k = 0; k < width; k++) gpus[k] = node * 4 + first + k;
                boolean fits = true;
                for (int g : gpus) fits &= p.on(g).size() < PlacementRules.MAX_JOBS_PER_GPU;
                Placed j = new Placed("j" + step);
                if (!fits) {
                    assertThatThrownBy(() -> p.place(j, gpus)).isInstanceOf(IllegalStateException.class);
                    continue;
                }
                p.place(j, gpus);
                placed.add(j);
                where.add(gpus);
            }
            List<RunningJob> running = new ArrayList<>();
            for (int i = 0; i < placed.size(); i++) {
                List<Integer> gpus = java.util.Arrays.stream(where.get(i)).boxed().toList();
                Job job = new Job(placed.get(i).id(), "u", 0, gpus.size(), SIG, 100, 1000, 0);
                running.add(new RunningJob(job, gpus, 0, 0, 100, 0, Double.NaN));
            }
            Occupancy built = Occupancy.of(cluster, running);
            assertThat(p.idleTotal()).isEqualTo(built.idleTotal());
            int busy = 0, shared = 0;
            for (int g = 0; g < cluster.gpuCount(); g++) {
                assertThat(p.keysOn(g)).containsExactlyInAnyOrderElementsOf(built.jobsOn(g));
                busy += built.jobsOn(g).isEmpty() ? 0 : 1;
                shared += built.jobsOn(g).size() > 1 ? 1 : 0;
            }
            assertThat(p.busyGpus()).isEqualTo(busy);
            assertThat(p.sharedGpus()).isEqualTo(shared);
            for (int n = 0; n < 3; n++) {
                assertThat(p.idleOnNode(n)).isEqualTo(built.idleOnNode(n));
                for (int count = 1; count <= 4; count++) assertThat(p.nodeWithIdle(count, n)).isEqualTo(built.nodeWithIdle(count, n));
            }
        }
    }
}
