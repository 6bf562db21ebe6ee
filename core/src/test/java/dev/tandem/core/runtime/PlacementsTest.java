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

    @Test
    void keepsTheLoneJobsInTheOrderTheyCameToBeAloneAndTellsOfEachChange() {
        Placements<String, Placed> p = ledger();
        List<String> told = new ArrayList<>();
        p.listen(new Placements.Listener<>() {
            @Override public void placed(Placed job) { told.add("placed " + job.id()); }

            @Override public void removed(Placed job) { told.add("removed " + job.id()); }

            @Override public void alone(Placed job) { told.add("+" + job.id()); }

            @Override public void notAlone(Placed job) { told.add("-" + job.id()); }
        });
        Placed a = new Placed("a"), b = new Placed("b"), c = new Placed("c"), gang = new Placed("gang");
        p.place(a, new int[] {0});
        p.place(gang, new int[] {4, 5});
        p.place(b, new int[] {0}); // a gets a partner
        p.place(c, new int[] {1});
        assertThat(p.alone()).containsExactly(gang, c);
        p.remove(b); // a is alone again: last in line
        assertThat(p.alone()).containsExactly(gang, c, a);
        p.setUsable(5, false); // half the gang's GPUs busy with someone else's work: it hosts no partner
        assertThat(p.alone()).containsExactly(c, a);
        p.setUsable(5, true);
        assertThat(p.alone()).containsExactly(c, a, gang);
        assertThat(told).containsExactly("+a", "placed a", "+gang", "placed gang", "-a", "placed b", "+c", "placed c", "+a", "removed b",
                "-gang", "+gang");
    }

    @Test
    void anUnusableGpuIsNotIdleWhetherOrNotAJobIsOnIt() {
        Placements<String, Placed> p = ledger();
        assertThat(p.unusableCount()).isZero();
        p.setUsable(2, false);
        p.setUsable(2, false); // no change
        assertThat(p.usable(2)).isFalse();
        assertThat(p.unusableCount()).isEqualTo(1);
        assertThat(p.idleTotal()).isEqualTo(7);
        assertThat(p.idleOnNode(0)).isEqualTo(3);
        assertThat(p.nodeWithIdle(4, 0)).as("node 0 has three idle GPUs").isEqualTo(1);
        Placed a = new Placed("a");
        p.place(a, new int[] {2}); // placing is the world's call (its rules refuse it); the ledger keeps count
        assertThat(p.idleTotal()).isEqualTo(7);
        assertThat(p.busyGpus()).isEqualTo(1);
        assertThat(p.alone()).isEmpty();
        p.setUsable(2, true);
        assertThat(p.unusableCount()).isZero();
        assertThat(p.idleTotal()).isEqualTo(7);
        assertThat(p.alone()).containsExactly(a);
        p.remove(a);
        assertThat(p.idleTotal()).isEqualTo(8);
        p.setUsable(2, true); // no change
        assertThat(p.idleTotal()).isEqualTo(8);
    }

    /** Against counts made from scratch after each of many random placements, removals and GPUs taken or given back. */
    @Test
    void agreesWithCountsMadeFromScratchAfterEveryChange() {
        Cluster cluster = Cluster.homogeneous(3, 4, new GpuType("T", 24576), 8, 1 << 16);
        Placements<String, Placed> p = new Placements<>(cluster, Placed::id);
        Random random = new Random(7);
        List<Placed> placed = new ArrayList<>();
        List<int[]> where = new ArrayList<>();
        java.util.Set<Integer> unusable = new java.util.HashSet<>();
        for (int step = 0; step < 3_000; step++) {
            int what = random.nextInt(6);
            if (what == 0) {
                int g = random.nextInt(cluster.gpuCount());
                boolean usable = random.nextBoolean();
                p.setUsable(g, usable);
                if (usable) unusable.remove(g);
                else unusable.add(g);
            } else if (!placed.isEmpty() && what <= 2) {
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
            int[] count = new int[cluster.gpuCount()];
            for (int[] gpus : where) for (int g : gpus) count[g]++;
            int busy = 0, shared = 0, idle = 0;
            int[] idlePerNode = new int[3];
            for (int g = 0; g < cluster.gpuCount(); g++) {
                assertThat(p.countOn(g)).isEqualTo(count[g]);
                busy += count[g] > 0 ? 1 : 0;
                shared += count[g] > 1 ? 1 : 0;
                if (count[g] == 0 && !unusable.contains(g)) {
                    idle++;
                    idlePerNode[g / 4]++;
                }
            }
            assertThat(p.busyGpus()).isEqualTo(busy);
            assertThat(p.sharedGpus()).isEqualTo(shared);
            assertThat(p.idleTotal()).isEqualTo(idle);
            for (int n = 0; n < 3; n++) {
                assertThat(p.idleOnNode(n)).isEqualTo(idlePerNode[n]);
                for (int c = 1; c <= 4; c++) {
                    int expected = -1;
                    for (int m = n; m < 3 && expected < 0; m++) if (idlePerNode[m] == c) expected = m;
                    assertThat(p.nodeWithIdle(c, n)).isEqualTo(expected);
                }
            }
            List<Placed> alone = new ArrayList<>();
            for (int i = 0; i < placed.size(); i++) {
                boolean isAlone = true;
                for (int g : where.get(i)) isAlone &= count[g] == 1 && !unusable.contains(g);
                if (isAlone) alone.add(placed.get(i));
            }
            assertThat(p.alone()).containsExactlyInAnyOrderElementsOf(alone);
        }
    }

    /** What a world without a ledger of its own hands a policy (tests, benchmarks): the same counts, in the list's order. */
    @Test
    void indexesOfAListOfRunningJobsKeepItsOrder() {
        List<RunningJob> running = new ArrayList<>();
        int[][] gpus = {{0}, {4, 5}, {0}, {1}, {6}};
        for (int i = 0; i < gpus.length; i++) {
            List<Integer> on = java.util.Arrays.stream(gpus[i]).boxed().toList();
            running.add(new RunningJob(new Job("r" + i, "u", 0, on.size(), SIG, 100, 1000, 0), on, 0, 0, 100 + i, 0, i == 3 ? 0.9 : Double.NaN));
        }
        Occupancy o = PlacedOccupancy.of(TWO_NODES, running, java.util.Set.of(6, 7));
        assertThat(o.jobsOn(0)).containsExactly("r0", "r2");
        assertThat(o.soleTenants()).extracting(RunningJob::id).containsExactly("r1", "r3");
        assertThat(o.idleTotal()).isEqualTo(2); // 2 and 3: 6 holds r4 and 7 is not usable
        assertThat(o.usable(6)).isFalse();
        assertThat(o.sharedGpus()).isEqualTo(1);
        assertThat(o.newlyObserved()).extracting(RunningJob::id).containsExactly("r3");
        assertThat(o.runningOn(0)).extracting(RunningJob::id).containsExactly("r0", "r2");
        assertThat(o.job("r9")).isEmpty();
        List<String> read = new ArrayList<>();
        o.readRunning((job, started, remaining, attained, known) -> read.add(job.id() + " " + remaining));
        assertThat(read).as("every running job, in the list's order, as its view says")
                .containsExactlyElementsOf(running.stream().map(r -> r.id() + " " + r.remainingIterations()).toList());
    }
}
