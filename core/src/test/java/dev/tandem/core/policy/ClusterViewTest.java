package dev.tandem.core.policy;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.UtilSumModel;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.Node;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Finding idle GPUs through the world's buckets of nodes by idle count must pick what the scan of every node
 * picked: the fullest node with room (lowest index among equals), else a spread over the nodes with most idle GPUs.
 */
class ClusterViewTest {
    private static final WorkloadSignature SIG = new WorkloadSignature("M", "d", 32, false);

    /** The rule as it was, from what the view shows (a GPU is idle when it has no occupants). */
    private static Optional<List<Integer>> scanEveryNode(Cluster c, ClusterView v, int n, long mem) {
        int nodes = c.nodes().size();
        int[] idle = new int[nodes];
        int total = 0;
        for (Gpu g : c.gpus()) {
            if (v.occupants(g.id()).isEmpty()) {
                idle[c.nodeIndexOf(g.id())]++;
                total++;
            }
        }
        if (total < n) return Optional.empty();
        int best = -1, eligible = 0;
        for (int i = 0; i < nodes; i++) {
            if (idle[i] == 0 || !room(c, i, mem)) continue;
            eligible += idle[i];
            if (idle[i] >= n && (best < 0 || idle[i] < idle[best])) best = i;
        }
        if (eligible < n) return Optional.empty();
        List<Integer> pick = new ArrayList<>();
        if (best >= 0) {
            collect(c, v, best, n, mem, pick);
            if (pick.size() == n) return Optional.of(pick);
            pick.clear();
        }
        Integer[] order = new Integer[nodes];
        for (int i = 0; i < nodes; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Integer.compare(idle[b], idle[a]));
        for (int node : order) {
            if (pick.size() == n) break;
            if (room(c, node, mem)) collect(c, v, node, n, mem, pick);
        }
        return pick.size() == n ? Optional.of(pick) : Optional.empty();
    }

    private static boolean room(Cluster c, int node, long mem) {
        return mem <= 0 || c.nodes().get(node).gpus().get(0).type().memoryMiB() >= mem;
    }

    private static void collect(Cluster c, ClusterView v, int node, int n, long mem, List<Integer> into) {
        for (Gpu g : c.nodes().get(node).gpus()) {
            if (into.size() == n) return;
            if (v.occupants(g.id()).isEmpty() && g.type().memoryMiB() >= mem) into.add(g.id());
        }
    }

    /** Nodes of 2, 4 or 8 GPUs with 16 or 80 GB, some GPUs busy, and a stream of 1- to 12-GPU requests. */
    private static int check(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Node> nodes = new ArrayList<>();
        int id = 0, count = 2 + rnd.nextInt(40); // beyond 16, a round may touch more nodes than the view finds by a scan
        for (int n = 0; n < count; n++) {
            int size = List.of(2, 4, 8).get(rnd.nextInt(3));
            GpuType t = rnd.nextBoolean() ? new GpuType("V100", 16_384) : new GpuType("A100", 81_920);
            List<Gpu> gpus = new ArrayList<>();
            for (int i = 0; i < size; i++) gpus.add(new Gpu(id++, "n" + n, i, t));
            nodes.add(new Node("n" + n, gpus, 8, 1 << 16));
        }
        Cluster c = new Cluster(nodes);
        List<RunningJob> running = new ArrayList<>();
        for (Gpu g : c.gpus()) {
            if (rnd.nextInt(3) == 0) {
                Job j = new Job("r" + running.size(), "u", 0, 1, SIG, 100, 1000, 0);
                running.add(new RunningJob(j, List.of(g.id()), 0, 0, 100, 0, Double.NaN));
            }
        }
        SchedulerSnapshot s = new SchedulerSnapshot(0, c, List.of(), running, new ProfileStore(), new UtilSumModel(1, 0, 0), new MemoryRule(0),
                Map.of(), Set.of());
        ClusterView v = new ClusterView(s);
        int found = 0;
        for (int step = 0; step < 60; step++) {
            int n = List.of(1, 1, 1, 2, 4, 8, 12).get(rnd.nextInt(7));
            long mem = rnd.nextInt(4) == 0 ? 40_000 : 1000;
            Optional<List<Integer>> expected = scanEveryNode(c, v, n, mem);
            Optional<List<Integer>> actual = v.findIdle(n, mem);
            assertThat(actual).as("seed %d step %d: %d GPU(s) of %d MiB", seed, step, n, mem).isEqualTo(expected);
            if (actual.isPresent()) {
                found++;
                v.place(new Job("q" + seed + "-" + step, "u", 0, n, SIG, 100, mem, 0), actual.get());
            }
            if (rnd.nextInt(4) == 0 && !running.isEmpty()) v.remove(running.get(rnd.nextInt(running.size())).id()); // frees GPUs this round
        }
        return found;
    }

    @Test
    void bucketsPickWhatTheScanOfEveryNodePicked() {
        int found = 0;
        for (long seed = 1; seed <= 300; seed++) found += check(seed);
        assertThat(found).as("the worlds must place jobs, not only refuse them").isGreaterThan(2000);
    }

    /**
     * Whether a round made a pair the world does not know of yet (tandem then looks for pairs to spread out even where
     * the world has none): a placement on an idle GPU or on GPUs held for it makes none, one next to a job does. The
     * world's own pairs are {@link Occupancy#sharedGpus}. One node of four GPUs, job r alone on GPU 0, t and u on GPU 3.
     */
    @Test
    void aRoundKnowsWhetherItPlacedAJobBesideAnother() {
        Cluster c = Cluster.homogeneous(1, 4, new GpuType("T", 24_576), 8, 1 << 16);
        Job r = new Job("r", "u", 0, 1, SIG, 100, 1000, 0);
        Job t = new Job("t", "u", 0, 1, SIG, 100, 1000, 0);
        Job u = new Job("u", "u", 0, 1, SIG, 100, 1000, 0);
        SchedulerSnapshot s = new SchedulerSnapshot(0, c, List.of(), List.of(new RunningJob(r, List.of(0), 0, 0, 100, 0, Double.NaN),
                new RunningJob(t, List.of(3), 0, 0, 100, 0, Double.NaN), new RunningJob(u, List.of(3), 0, 0, 100, 0, Double.NaN)),
                new ProfileStore(), new UtilSumModel(1, 0, 0), new MemoryRule(0), Map.of(), Set.of());
        assertThat(s.occupancy().sharedGpus()).isEqualTo(1);
        ClusterView v = new ClusterView(s);
        assertThat(v.placedBesideAJob()).isFalse();
        v.place(new Job("idle", "u", 0, 1, SIG, 100, 1000, 0), List.of(1));
        v.hold(List.of(2));
        v.place(new Job("gang", "u", 0, 1, SIG, 100, 1000, 0), List.of(2));
        assertThat(v.placedBesideAJob()).as("on an idle GPU and on a held one").isFalse();
        v.remove("r");
        v.place(new Job("after", "u", 0, 1, SIG, 100, 1000, 0), List.of(0));
        assertThat(v.placedBesideAJob()).as("where a job left this round").isFalse();
        v.place(new Job("beside", "u", 0, 1, SIG, 100, 1000, 0), List.of(1));
        assertThat(v.placedBesideAJob()).isTrue();
    }

    /**
     * GPUs held for a waiting gang: not idle, no partner for a job on them, one occupant more; released, as before.
     * One node of four GPUs, job r alone on GPU 0, GPUs 1-3 idle.
     */
    @Test
    void heldGpusAreNeitherIdleNorHostsUntilReleased() {
        Cluster c = Cluster.homogeneous(1, 4, new GpuType("T", 24_576), 8, 1 << 16);
        Job r = new Job("r", "u", 0, 1, SIG, 100, 1000, 0);
        SchedulerSnapshot s = new SchedulerSnapshot(0, c, List.of(), List.of(new RunningJob(r, List.of(0), 0, 0, 100, 0, Double.NaN)),
                new ProfileStore(), new UtilSumModel(1, 0, 0), new MemoryRule(0), Map.of(), Set.of());
        ClusterView v = new ClusterView(s);
        assertThat(v.soleTenants()).extracting(Job::id).containsExactly("r");
        assertThat(v.untouched()).isTrue();

        v.hold(List.of(0, 1));
        assertThat(v.untouched()).isFalse();
        assertThat(v.held(1)).isTrue();
        assertThat(v.held(2)).isFalse();
        assertThat(v.freeCount()).isEqualTo(2);
        assertThat(v.findIdle(2, 0)).contains(List.of(2, 3));
        assertThat(v.findIdle(3, 0)).isEmpty();
        assertThat(v.occupantCount(0)).as("r and the hold").isEqualTo(2);
        assertThat(v.occupantCount(1)).as("the hold alone").isEqualTo(1);
        assertThat(v.occupants(1)).as("a hold is no job").isEmpty();
        assertThat(v.unchanged(1)).isFalse();
        assertThat(v.unchanged(2)).isTrue();
        assertThat(v.soleTenancy("r")).as("r takes no partner on a held GPU").isEmpty();
        assertThat(v.soleTenants()).isEmpty();
        v.hold(List.of(1)); // holding again changes nothing
        assertThat(v.freeCount()).isEqualTo(2);

        v.release(List.of(0, 1));
        assertThat(v.freeCount()).isEqualTo(3);
        assertThat(v.findIdle(3, 0)).contains(List.of(1, 2, 3));
        assertThat(v.soleTenants()).extracting(Job::id).containsExactly("r");
        assertThat(v.occupantCount(0)).isEqualTo(1);
        v.release(List.of(0)); // releasing what is not held changes nothing
        assertThat(v.freeCount()).isEqualTo(3);
    }

    /** A hold takes only the lone jobs on the held GPUs out of the hosts; the other lone jobs stay hosts. */
    @Test
    void aHoldRemovesOnlyTheLoneJobsOnItsGpusFromTheHosts() {
        Cluster c = Cluster.homogeneous(1, 4, new GpuType("T", 24_576), 8, 1 << 16);
        Job r = new Job("r", "u", 0, 1, SIG, 100, 1000, 0);
        Job t = new Job("t", "u", 0, 1, SIG, 100, 1000, 0);
        SchedulerSnapshot s = new SchedulerSnapshot(0, c, List.of(), List.of(new RunningJob(r, List.of(0), 0, 0, 100, 0, Double.NaN),
                new RunningJob(t, List.of(2), 0, 0, 100, 0, Double.NaN)), new ProfileStore(), new UtilSumModel(1, 0, 0), new MemoryRule(0), Map.of(), Set.of());
        ClusterView v = new ClusterView(s);
        v.hold(List.of(0, 1));
        assertThat(v.soleTenants()).extracting(Job::id).containsExactly("t");
        v.release(List.of(0, 1));
        assertThat(v.soleTenants()).extracting(Job::id).containsExactly("r", "t");
        v.hold(List.of(2));
        assertThat(v.soleTenants()).extracting(Job::id).containsExactly("r");
        v.release(List.of(2));
        v.remove("r");
        v.place(r, List.of(3)); // moved within the round: a host once, on its new GPU
        assertThat(v.soleTenants()).extracting(Job::id).containsExactly("t", "r");
        v.place(new Job("q", "u", 0, 1, SIG, 100, 1000, 0), List.of(2)); // a partner for t
        assertThat(v.soleTenants()).extracting(Job::id).containsExactly("r");
    }

    /**
     * Policies keep what they derived from a view while its version stays (a reservation's "is a held GPU otherwise
     * empty"), and ask whether a waiting job was placed this round without a look-up while none was: every change
     * must move the version, and only a placement still standing counts.
     */
    @Test
    void everyChangeMovesTheVersionAndOnlyStandingPlacementsCount() {
        Cluster c = Cluster.homogeneous(1, 4, new GpuType("T", 24_576), 8, 1 << 16);
        Job r = new Job("r", "u", 0, 1, SIG, 100, 1000, 0);
        Job q = new Job("q", "u", 0, 1, SIG, 100, 1000, 0);
        SchedulerSnapshot s = new SchedulerSnapshot(0, c, List.of(), List.of(new RunningJob(r, List.of(0), 0, 0, 100, 0, Double.NaN)),
                new ProfileStore(), new UtilSumModel(1, 0, 0), new MemoryRule(0), Map.of(), Set.of());
        ClusterView v = new ClusterView(s);
        long seen = v.version();
        assertThat(v.placedThisRound("q")).isFalse();
        assertThat(v.placedThisRound("r")).as("running in the world, not placed by the round").isFalse();

        v.place(q, List.of(1));
        assertThat(v.version()).isGreaterThan(seen);
        seen = v.version();
        assertThat(v.placedThisRound("q")).isTrue();
        assertThat(v.placedThisRound("r")).isFalse();

        v.hold(List.of(2));
        assertThat(v.version()).isGreaterThan(seen);
        seen = v.version();
        v.release(List.of(2));
        assertThat(v.version()).isGreaterThan(seen);
        seen = v.version();

        v.remove("q");
        assertThat(v.version()).isGreaterThan(seen);
        assertThat(v.placedThisRound("q")).as("placed, then taken off again").isFalse();
        seen = v.version();
        v.remove("r");
        assertThat(v.version()).isGreaterThan(seen);
        assertThat(v.placedThisRound("r")).isFalse();
    }
}
