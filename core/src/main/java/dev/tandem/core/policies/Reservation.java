package dev.tandem.core.policies;

import dev.tandem.core.model.DurationText;
import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.Job;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * GPUs held back for a gang that would otherwise wait for the end of a batch. While single-GPU work keeps
 * arriving on every GPU that frees up, a gang finds its GPUs idle together only once the queue has drained,
 * and then ends the batch alone. Backfilling with a reservation (EASY backfilling) fixes that: the GPUs of one
 * node that will drain soonest get no new partner, and an idle one takes only a job expected to finish (at solo
 * speed) before the last of them drains, so the gang starts no later than the reservation said.
 *
 * <p>One reservation at a time, kept across rounds (choosing the GPUs scans the cluster, so it is done once per
 * reservation, not per round); it ends when its gang starts or leaves the head of the queue.
 */
final class Reservation {
    /** After no GPUs drained soon enough, the next try waits this long: each try scans the whole cluster. */
    static final double RETRY_SECONDS = 300;

    private String jobId;
    private Job gang;
    /**
     * The gang's entry in this round's queue ({@link #begin}, {@link #hold}): a round asks {@link #isFor} of each of up
     * to hundreds of waiting jobs, and comparing their ids read every job's id text (a twentieth of tandem's time on the
     * Philly replay); within a round each waiting job is one entry.
     */
    private dev.tandem.core.policy.PendingJob roundGang;
    private double retryAt = Double.NEGATIVE_INFINITY;
    /** How soon GPUs drain, for the policy's asks and the hold's choice (begun anew for each view). */
    private final Drains drains = new Drains();
    private List<Integer> gpus;
    /** When the reserved GPUs are expected to be free, as of this round. */
    private double readyAt;
    /** {@link #anyHeldAlone} as of a view's version. */
    private ClusterView aloneView;
    private long aloneVersion;
    private boolean heldAlone;

    /** At the start of a round: holds the reserved GPUs in {@code view} if its gang still waits in {@code head}. */
    void begin(SchedulerSnapshot s, ClusterView view, List<dev.tandem.core.policy.PendingJob> head) {
        aloneView = null; // the last round's view and its snapshot are not kept
        roundGang = null;
        if (jobId == null) return;
        for (dev.tandem.core.policy.PendingJob p : head) {
            if (p.id().equals(jobId)) {
                roundGang = p;
                break;
            }
        }
        if (roundGang == null) {
            clear();
            return;
        }
        readyAt = s.now() + drainSeconds(s, view, gpus);
        view.hold(gpus);
    }

    boolean active() { return jobId != null; }

    /** Whether {@code p}, a job of the round's queue ({@link #begin}'s {@code head}), is the gang the GPUs are held for. */
    boolean isFor(dev.tandem.core.policy.PendingJob p) { return p == roundGang; }

    boolean isFor(String id) { return id.equals(jobId); }

    /** Lets the gang itself see its reserved GPUs while it looks for idle ones. */
    void release(ClusterView view) { view.release(gpus); }

    /**
     * Holds the reserved GPUs again after the gang could not start, or reserves for a new gang if GPUs for it
     * drain within {@code maxDrainSeconds} (holding GPUs that stay busy long idles them for nothing).
     */
    boolean hold(SchedulerSnapshot s, ClusterView view, dev.tandem.core.policy.PendingJob gang, double maxDrainSeconds) {
        if (!isFor(gang)) {
            if (s.now() < retryAt) return false;
            Optional<Drains.Room> soonest = drains.begin(s, view).soonest(gang.job());
            if (soonest.isEmpty() || soonest.get().drainSeconds() > maxDrainSeconds) {
                retryAt = s.now() + RETRY_SECONDS;
                return false;
            }
            jobId = gang.id();
            this.gang = gang.job();
            roundGang = gang;
            gpus = soonest.get().gpus();
            readyAt = s.now() + soonest.get().drainSeconds();
        }
        view.hold(gpus);
        return true;
    }

    /**
     * Places {@code p} on idle reserved GPUs if it is expected to be done before they are all free (EASY
     * backfilling), and returns them; the reserved GPUs stay held for everything else.
     *
     * @param expectedSeconds the solo seconds {@code p} still needs ({@link SchedulerSnapshot#expectedSoloSeconds(dev.tandem.core.policy.PendingJob)})
     */
    Optional<List<Integer>> backfill(SchedulerSnapshot s, ClusterView view, dev.tandem.core.policy.PendingJob p, double expectedSeconds) {
        if (jobId == null || isFor(p) || !anyHeldAlone(view) || s.now() + expectedSeconds > readyAt) return Optional.empty();
        release(view);
        Optional<List<Integer>> idle = view.findIdle(p.job());
        idle.ifPresent(g -> view.place(p.job(), g));
        view.hold(gpus);
        return idle;
    }

    /**
     * Whether a reserved GPU holds nothing but the hold. The caller found no idle GPUs for its job: releasing the hold
     * frees only such GPUs, so without one a backfill changes nothing. Kept while the view is unchanged: every waiting
     * job of a round is asked, mostly while the held GPUs still run the jobs the gang waits for.
     */
    private boolean anyHeldAlone(ClusterView view) {
        if (view != aloneView || view.version() != aloneVersion) {
            aloneView = view;
            aloneVersion = view.version();
            heldAlone = false;
            for (int g : gpus) heldAlone |= view.occupantCount(g) == 1; // the hold alone
        }
        return heldAlone;
    }

    /** Holds the reserved GPUs again after {@link #release}, in the rest of the round's view. */
    void holdAgain(ClusterView view) {
        view.hold(gpus);
    }

    /** The reserved GPUs (only while {@link #active()}). */
    List<Integer> gpus() { return gpus; }

    /** Seconds until the reserved GPUs are expected to be free. */
    double readyIn(double now) { return readyAt - now; }

    String gangId() { return jobId; }

    /** The hold as the policy tells the world of it, at every decision it lasts (only while {@link #active()}). */
    Decision.Reserve decision(double now) {
        double readyIn = Math.max(0, readyIn(now));
        return new Decision.Reserve(jobId, gpus, readyIn, "GPU(s) " + gpus + " held for this " + gang.gpus() + "-GPU job: expected free "
                + DurationText.roughIn(readyIn) + "; meanwhile only work expected to be done by then may use them");
    }

    /** The gang started, or left the head of the queue. */
    void clear() {
        jobId = null;
        gang = null;
        roundGang = null;
        gpus = null;
    }

    /**
     * Each GPU's expected drain in one view, each worked out once, and per gang size and memory need the node whose GPUs
     * drain soonest: tandem asks at decisions where a job on the critical path could join a partner, for every such
     * pair, and a look at every GPU per ask (listing and sorting their drains as objects, node by node) was a fifth of a
     * 100,000-job run on 2,000 GPUs. A reservation asks the same when it chooses GPUs for a gang. tandem's question is
     * only whether GPUs drain soon enough ({@link #freeWhen}): the nodes are looked at until one answers it, and on
     * 20,000 GPUs, where a look at every one per round was most of tandem's time, the first few nodes mostly do. One
     * per policy, begun anew for each view ({@link #begin}): what it has worked out is forgotten in one step, not by
     * clearing an entry per GPU at every round.
     */
    static final class Drains {
        /** What the soonest drain depends on: the gang size and the memory charged per GPU. */
        private record GangNeed(int gpus, long chargedMiB) {}

        private SchedulerSnapshot s;
        private ClusterView view;
        private long version;
        /** Seconds per GPU, valid where {@link #workedOutIn} is the current {@link #epoch}. */
        private double[] seconds = new double[0];
        private int[] workedOutIn = new int[0];
        /** Counts the views begun and their changes: a GPU's drain holds only in the epoch it was worked out in. */
        private int epoch;
        /** Per gang need, how far the nodes have been looked at (since the view's last change). */
        private final Map<GangNeed, Scan> scans = new HashMap<>();
        /** One node's drains, sorted ({@link #lookAt}). */
        private double[] nodeDrains = new double[0];

        /** The nodes before {@code next} looked at for a need: the first where its drain was least, and that drain. */
        private static final class Scan {
            final GangNeed need;
            int next;
            int node = -1;
            double seconds = Double.POSITIVE_INFINITY;

            Scan(GangNeed need) { this.need = need; }

            boolean done(int nodes) { return next == nodes || seconds <= 0; } // none sooner than 0
        }

        /** Starts on a view: nothing worked out yet. */
        Drains begin(SchedulerSnapshot s, ClusterView view) {
            this.s = s;
            this.view = view;
            int n = s.cluster().gpuCount();
            if (seconds.length != n) {
                seconds = new double[n];
                workedOutIn = new int[n];
            }
            forget();
            return this;
        }

        /** Seconds until every job on the GPU is done, as of the view now. */
        double of(int gpu) {
            forgetIfChanged();
            if (workedOutIn[gpu] != epoch) {
                seconds[gpu] = drainSeconds(s, view, gpu);
                workedOutIn[gpu] = epoch;
            }
            return seconds[gpu];
        }

        /**
         * Whether GPUs for this job (as many as it needs, on one node) are expected to be free at a time {@code soonEnough}
         * accepts: true as soon as a node's drain is accepted, so {@code soonEnough} must accept every time below one it
         * accepts; then the answer is the same as for the soonest drain of all nodes, without looking at them all.
         */
        boolean freeWhen(Job job, java.util.function.DoublePredicate soonEnough) {
            return soonEnough.test(scan(job, soonEnough).seconds);
        }

        /** GPUs for a gang, in id order, and when the last of them is expected to be free. */
        record Room(List<Integer> gpus, double drainSeconds) {}

        /**
         * The {@code job.gpus()} GPUs of one node that are expected to be free soonest (on the first node where the last of
         * them drains soonest; on it the soonest GPUs, the lower id among equals), with that drain (the scan's, which is
         * the last of the chosen GPUs'); empty if no node has that many GPUs with room for the job.
         */
        Optional<Room> soonest(Job job) {
            Scan scan = scan(job, seconds -> false); // every node
            if (scan.node < 0) return Optional.empty();
            List<Integer> ids = new ArrayList<>();
            for (Gpu g : s.cluster().nodes().get(scan.node).gpus()) ids.add(g.id());
            ids.sort(Comparator.comparingDouble((Integer g) -> of(g)).thenComparingInt(g -> g));
            return Optional.of(new Room(ids.subList(0, job.gpus()).stream().sorted().toList(), scan.seconds));
        }

        /** The job's need's scan, taken on until {@code enough} accepts its drain so far or every node is looked at. */
        private Scan scan(Job job, java.util.function.DoublePredicate enough) {
            forgetIfChanged();
            Scan scan = scans.computeIfAbsent(new GangNeed(job.gpus(), s.memoryRule().charged(s.memoryNeed(job))), Scan::new);
            int nodes = s.cluster().nodes().size();
            while (!enough.test(scan.seconds) && !scan.done(nodes)) lookAt(scan);
            return scan;
        }

        /** Looks at the scan's next node: with enough GPUs and memory, the k-th soonest drain of its GPUs. */
        private void lookAt(Scan scan) {
            List<Gpu> gpus = s.cluster().nodes().get(scan.next++).gpus();
            int k = scan.need.gpus();
            if (gpus.size() < k || gpus.get(0).type().memoryMiB() < scan.need.chargedMiB()) return;
            if (nodeDrains.length < gpus.size()) nodeDrains = new double[gpus.size()];
            for (int i = 0; i < gpus.size(); i++) nodeDrains[i] = of(gpus.get(i).id());
            Arrays.sort(nodeDrains, 0, gpus.size());
            if (nodeDrains[k - 1] < scan.seconds) {
                scan.node = scan.next - 1;
                scan.seconds = nodeDrains[k - 1];
            }
        }

        /** The view changed since: nothing worked out holds. */
        private void forgetIfChanged() {
            if (view.version() != version) forget();
        }

        private void forget() {
            version = view.version();
            if (++epoch == 0) { // wrapped: a stale entry could read as current
                java.util.Arrays.fill(workedOutIn, 0);
                epoch = 1;
            }
            scans.clear();
        }
    }

    static double drainSeconds(SchedulerSnapshot s, ClusterView view, List<Integer> gpus) {
        double drain = 0;
        for (int g : gpus) drain = Math.max(drain, drainSeconds(s, view, g));
        return drain;
    }

    /** Seconds until every job on the GPU is done at its observed speed (solo speed until observed); infinite if unknown. */
    private static double drainSeconds(SchedulerSnapshot s, ClusterView view, int gpu) {
        if (!s.occupancy().usable(gpu)) return Double.POSITIVE_INFINITY; // busy with processes that are not ours: no telling when
        double drain = 0;
        if (view.unchanged(gpu)) { // the world's occupants as it holds them per GPU: no look-up by id
            List<RunningJob> on = s.occupancy().runningOn(gpu);
            if (on.size() < s.occupancy().countOn(gpu)) return Double.POSITIVE_INFINITY; // one it cannot show (live: its record is gone)
            for (int i = 0; i < on.size(); i++) drain = Math.max(drain, drainSeconds(s, on.get(i)));
            return drain;
        }
        for (Job j : view.occupants(gpu)) drain = Math.max(drain, drainSeconds(s, s.occupancy().job(j.id())));
        return drain;
    }

    /** Seconds until a running job is done at its observed speed (solo speed until observed); infinite if not running. */
    private static double drainSeconds(SchedulerSnapshot s, Optional<RunningJob> running) {
        if (running.isEmpty()) return Double.POSITIVE_INFINITY; // placed this round or held: not draining soon
        return drainSeconds(s, running.get());
    }

    private static double drainSeconds(SchedulerSnapshot s, RunningJob r) {
        double speed = Double.isNaN(r.observedSpeed()) || r.observedSpeed() <= 0 ? 1 : r.observedSpeed();
        return s.expectedSoloSeconds(r) / speed;
    }

}
