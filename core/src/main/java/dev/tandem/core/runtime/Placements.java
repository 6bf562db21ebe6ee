package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policy.IdleNodeBuckets;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Who holds which GPUs, kept the same way in every world: the simulator places its jobs here, the daemon its runs
 * (a run stays placed until its process has ended). It holds the co-location limit itself ({@link
 * PlacementRules#MAX_JOBS_PER_GPU}: a third job on a GPU is refused here whatever a world's checks let through) and
 * keeps the counts policies read through {@link dev.tandem.core.policy.Occupancy} ({@link PlacedOccupancy}) up to
 * date as jobs come and go: idle GPUs per node and in all, the nodes grouped by their idle GPUs, busy and shared GPUs,
 * and the jobs alone on all their GPUs (the only hosts a co-locating policy can give a partner). Each costs a step per
 * GPU of the job placed or removed, never a pass over the cluster. Live, some GPUs may be unusable for a while (busy
 * with work that is not the scheduler's, {@link #setUsable}): such a GPU is not idle, and a job on it hosts no partner.
 *
 * <p>A GPU's occupants are in the order they came, the placed jobs in the order of their (latest) placement, and the
 * lone jobs in the order they came to be alone: a world that hands them to a policy in that order gets the same
 * decisions as another world doing so.
 *
 * @param <K> what the world tells its jobs apart by (the simulator's job id, the daemon's numeric job id)
 * @param <R> what the world places: its job, or its run of a job
 */
public final class Placements<K, R> {
    private final Cluster cluster;
    private final Function<R, K> key;
    private final List<List<R>> onGpu;
    private final List<List<R>> onGpuViews;
    private final List<List<K>> keysOnGpu;
    private final List<List<K>> keysOnGpuViews;
    /** A placed job and the GPUs it holds. */
    private record Placed<R>(R job, int[] gpus) {}

    /** The placed jobs by key, in the order of their (latest) placement. */
    private final Map<K, Placed<R>> placed = new LinkedHashMap<>();
    private final Collection<R> placedView = new java.util.AbstractCollection<>() {
        @Override public java.util.Iterator<R> iterator() {
            java.util.Iterator<Placed<R>> it = placed.values().iterator();
            return new java.util.Iterator<>() {
                @Override public boolean hasNext() { return it.hasNext(); }

                @Override public R next() { return it.next().job(); }
            };
        }

        @Override public int size() { return placed.size(); }
    };
    /** Jobs per GPU: {@link #onGpu}'s sizes, read without reaching into a list (a policy asks for every GPU it looks at). */
    private final int[] countOn;
    private final int[] idlePerNode;
    private final IdleNodeBuckets nodesByIdle;
    private int idleTotal, busyGpus, sharedGpus;
    /** GPUs the world may not place on now ({@link #setUsable}). */
    private final java.util.BitSet unusable = new java.util.BitSet();
    private int unusableCount;
    /** The jobs alone on all of their GPUs, all usable, in the order they came to be so. */
    private final java.util.LinkedHashSet<R> alone = new java.util.LinkedHashSet<>();
    private final Collection<R> aloneView = Collections.unmodifiableCollection(alone);
    private Listener<R> listener = new Listener<>() {};

    /**
     * Told of every change to the placed jobs and to the lone ones, in the order they happen: what a world writes into
     * its journals of them ({@code RunningJournal}, {@code SoleTenantJournal}), which policies follow instead of
     * rebuilding their indexes every round. A job is told placed once it is on all its GPUs (after it may have come to be
     * alone), removed once it is off them (after the jobs it shared with may have come to be alone).
     */
    public interface Listener<R> {
        default void placed(R job) {}

        default void removed(R job) {}

        default void alone(R job) {}

        default void notAlone(R job) {}
    }

    /** @param key how the world tells a placed job apart (equal keys: the same job) */
    public Placements(Cluster cluster, Function<R, K> key) {
        this.cluster = cluster;
        this.key = key;
        int n = cluster.gpuCount();
        onGpu = new ArrayList<>(n);
        onGpuViews = new ArrayList<>(n);
        keysOnGpu = new ArrayList<>(n);
        keysOnGpuViews = new ArrayList<>(n);
        for (int g = 0; g < n; g++) {
            List<R> on = new ArrayList<>(PlacementRules.MAX_JOBS_PER_GPU);
            List<K> keys = new ArrayList<>(PlacementRules.MAX_JOBS_PER_GPU);
            onGpu.add(on);
            onGpuViews.add(Collections.unmodifiableList(on));
            keysOnGpu.add(keys);
            keysOnGpuViews.add(Collections.unmodifiableList(keys));
        }
        countOn = new int[n];
        idlePerNode = new int[cluster.nodes().size()];
        for (int node = 0; node < idlePerNode.length; node++) idlePerNode[node] = cluster.nodes().get(node).gpus().size();
        nodesByIdle = new IdleNodeBuckets(cluster, idlePerNode);
        idleTotal = n;
    }

    /** Tells {@code listener} of every change from now on (see {@link Listener}). */
    public void listen(Listener<R> listener) {
        this.listener = listener;
    }

    /**
     * Places a job on GPUs. Refused (an {@link IllegalStateException}, nothing changed) if it is placed already, a GPU
     * is not the cluster's or is named twice, or a GPU would hold more than {@link PlacementRules#MAX_JOBS_PER_GPU}
     * jobs: each world checks a decision before it places ({@link DecisionRules}), so a refusal here is a bug.
     */
    public void place(R job, int[] gpus) {
        put(job, gpus, true);
    }

    /**
     * Records a job the world found already on its GPUs (the daemon re-adopting the processes that outlived it), even
     * where a GPU then holds more than {@link PlacementRules#MAX_JOBS_PER_GPU} jobs: the processes are there, and
     * a ledger that did not show them would let the world place more beside them. True if within the limit.
     */
    public boolean adopt(R job, List<Integer> gpus) {
        int[] a = gpuArray(gpus);
        boolean within = true;
        for (int g : a) if (g >= 0 && g < onGpu.size() && onGpu.get(g).size() >= PlacementRules.MAX_JOBS_PER_GPU) within = false;
        put(job, a, false);
        return within;
    }

    private void put(R job, int[] gpus, boolean limit) {
        K k = key.apply(job);
        Placed<R> already = placed.get(k);
        if (already != null) throw new IllegalStateException("job " + k + " is placed already, on GPU(s) " + Arrays.toString(already.gpus()));
        if (gpus.length == 0) throw new IllegalStateException("job " + k + " is placed on no GPU");
        for (int i = 0; i < gpus.length; i++) {
            int g = gpus[i];
            if (g < 0 || g >= onGpu.size()) throw new IllegalStateException("job " + k + ": no GPU " + g + " in a cluster of " + onGpu.size());
            for (int j = 0; j < i; j++) if (gpus[j] == g) throw new IllegalStateException("job " + k + " names GPU " + g + " twice");
            if (limit && onGpu.get(g).size() >= PlacementRules.MAX_JOBS_PER_GPU) {
                throw new IllegalStateException("job " + k + " on GPU " + g + ": it holds " + keysOnGpu.get(g) + " already, and a GPU runs at most "
                        + PlacementRules.MAX_JOBS_PER_GPU + " jobs");
            }
        }
        int[] own = gpus.clone();
        for (int g : own) {
            List<R> on = onGpu.get(g);
            for (int i = 0; i < on.size(); i++) notAlone(on.get(i));
            on.add(job);
            keysOnGpu.get(g).add(k);
            recount(g, on.size() - 1);
        }
        placed.put(k, new Placed<>(job, own));
        if (aloneOn(own)) becomeAlone(job);
        listener.placed(job);
    }

    /** Whether a job on these GPUs is alone there: each holds one job and may be used. */
    private boolean aloneOn(int[] gpus) {
        for (int g : gpus) if (countOn[g] != 1 || unusable.get(g)) return false;
        return true;
    }

    private void becomeAlone(R job) {
        if (alone.add(job)) listener.alone(job);
    }

    private void notAlone(R job) {
        if (alone.remove(job)) listener.notAlone(job);
    }

    /** Sorts the jobs on a GPU whose occupants or usability changed into lone ones and others, in the GPU's order. */
    private void lookAgain(int gpu) {
        List<R> on = onGpu.get(gpu);
        for (int i = 0; i < on.size(); i++) {
            R o = on.get(i);
            if (aloneOn(placed.get(key.apply(o)).gpus())) becomeAlone(o);
            else notAlone(o);
        }
    }

    /** As {@link #place(Object, int[])}. */
    public void place(R job, List<Integer> gpus) {
        place(job, gpuArray(gpus));
    }

    /** GPU indexes as the array {@link #place(Object, int[])} takes. */
    public static int[] gpuArray(List<Integer> gpus) {
        int[] a = new int[gpus.size()];
        for (int i = 0; i < a.length; i++) a[i] = gpus.get(i);
        return a;
    }

    /** Takes a job off its GPUs; false if it was not placed. */
    public boolean remove(R job) {
        K k = key.apply(job);
        Placed<R> was = placed.remove(k);
        if (was == null) return false;
        for (int g : was.gpus()) {
            List<R> on = onGpu.get(g);
            int at = on.indexOf(job);
            on.remove(at);
            keysOnGpu.get(g).remove(at);
            recount(g, on.size() + 1);
        }
        notAlone(job);
        for (int g : was.gpus()) lookAgain(g); // the jobs it shared with may be alone now
        listener.removed(job);
        return true;
    }

    /**
     * Marks a GPU usable or not (live: busy with processes that are not the scheduler's, held by another daemon). An
     * unusable GPU without jobs is not idle, and a job on it is not alone. Jobs may stay placed on it.
     */
    public void setUsable(int gpu, boolean usable) {
        if (usable != unusable.get(gpu)) return; // no change
        boolean idleBefore = countOn[gpu] == 0 && !unusable.get(gpu);
        unusable.set(gpu, !usable);
        unusableCount += usable ? -1 : 1;
        boolean idleNow = countOn[gpu] == 0 && usable;
        if (idleBefore != idleNow) moveIdle(gpu, idleNow ? 1 : -1);
        lookAgain(gpu);
    }

    /** Whether the world may place on a GPU now ({@link #setUsable}); every GPU is, until marked otherwise. */
    public boolean usable(int gpu) { return !unusable.get(gpu); }

    /** How many GPUs are not usable ({@link #setUsable}). */
    public int unusableCount() { return unusableCount; }

    /** A GPU went from {@code before} occupants to its current count: the idle, busy and shared counts follow. */
    private void recount(int gpu, int before) {
        int now = onGpu.get(gpu).size();
        countOn[gpu] = now;
        if ((before > 0) != (now > 0)) {
            busyGpus += now > 0 ? 1 : -1;
            if (!unusable.get(gpu)) moveIdle(gpu, now > 0 ? -1 : 1);
        }
        if ((before > 1) != (now > 1)) sharedGpus += now > 1 ? 1 : -1;
    }

    private void moveIdle(int gpu, int by) {
        int node = cluster.nodeIndexOf(gpu);
        nodesByIdle.moved(node, idlePerNode[node], idlePerNode[node] + by);
        idlePerNode[node] += by;
        idleTotal += by;
    }

    /** How many jobs are on a GPU. */
    public int countOn(int gpu) { return countOn[gpu]; }

    /** The jobs on a GPU, in the order they came (a view). */
    public List<R> on(int gpu) { return onGpuViews.get(gpu); }

    /** The keys of the jobs on a GPU, in {@link #on}'s order (a view). */
    public List<K> keysOn(int gpu) { return keysOnGpuViews.get(gpu); }

    /** A placed job by its key, or null. */
    public R get(K key) {
        Placed<R> p = placed.get(key);
        return p == null ? null : p.job();
    }

    /** The GPUs a placed job holds (a copy), empty if it is not placed. */
    public int[] gpusOf(K key) {
        Placed<R> p = placed.get(key);
        return p == null ? new int[0] : p.gpus().clone();
    }

    /** Every placed job, in the order of its latest placement (a view). */
    public Collection<R> all() { return placedView; }

    public int size() { return placed.size(); }

    public boolean isEmpty() { return placed.isEmpty(); }

    /** The other jobs on any of these GPUs, each once, in GPU order and then the order they came. */
    public List<R> on(int[] gpus, R except) {
        List<R> out = new ArrayList<>(2);
        for (int g : gpus) for (R o : onGpu.get(g)) if (o != except && !out.contains(o)) out.add(o);
        return out;
    }

    /** As {@link #on(int[], Object)}. */
    public List<R> on(List<Integer> gpus, R except) {
        return on(gpuArray(gpus), except);
    }

    public int gpuCount() { return onGpu.size(); }

    /** GPUs no job is placed on that the world may use. */
    public int idleTotal() { return idleTotal; }

    public int idleOnNode(int node) { return idlePerNode[node]; }

    /** The first node at or after {@code from} with exactly {@code count} idle GPUs, or -1 ({@link IdleNodeBuckets#next}). */
    public int nodeWithIdle(int count, int from) { return nodesByIdle.next(count, from); }

    /** GPUs with at least one job. */
    public int busyGpus() { return busyGpus; }

    /** GPUs with more than one job. */
    public int sharedGpus() { return sharedGpus; }

    /** The jobs alone on all of their GPUs, all usable, in the order they came to be alone (a view). */
    public Collection<R> alone() { return aloneView; }
}
