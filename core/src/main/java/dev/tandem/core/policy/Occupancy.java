package dev.tandem.core.policy;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Job;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleSupplier;

/**
 * Who runs where, as the world indexes it, so that policies find idle GPUs and lone jobs without scanning
 * the whole cluster or every running job. A world with large clusters (the simulator) keeps these indexes up
 * to date as jobs start and stop; {@link #of} builds them from a list of running jobs for worlds that do not.
 */
public interface Occupancy {
    int idleTotal();

    int idleOnNode(int node);

    /**
     * The first node at or after {@code from} with exactly {@code count} idle GPUs (0 < count <= the largest node's
     * GPU count), or -1 if none: read in ascending order from 0. Worlds keep these groups up to date as jobs start and
     * stop ({@link IdleNodeBuckets}), so that finding a node for a job does not scan every node.
     */
    int nodeWithIdle(int count, int from);

    /** Ids of the jobs on a GPU; empty when no job of the scheduler's is on it (it is idle if also {@link #usable}). */
    List<String> jobsOn(int gpu);

    /**
     * How many GPUs hold more than one job of the scheduler's: with none, no pair needs a look (tandem spreads pairs out
     * when GPUs fall idle, and need not walk every running job to find there are none).
     */
    int sharedGpus();

    /** How many jobs of the scheduler's are on a GPU ({@link #jobsOn}'s size, where a world counts it without a list). */
    default int countOn(int gpu) { return jobsOn(gpu).size(); }

    /**
     * Whether the scheduler may place jobs on a GPU. Live, a GPU busy with processes that are not the scheduler's
     * (someone's notebook, another scheduler) is not usable until they leave: it is not idle, and a job of ours on it
     * is no host for a partner. Simulated GPUs are always usable.
     */
    default boolean usable(int gpu) { return true; }

    Optional<RunningJob> job(String id);

    /** The running jobs on a GPU, without a look-up per id where the world holds them per GPU. */
    default List<RunningJob> runningOn(int gpu) {
        List<String> ids = jobsOn(gpu);
        if (ids.isEmpty()) return List.of();
        List<RunningJob> out = new ArrayList<>(ids.size());
        for (String id : ids) out.add(job(id).orElseThrow());
        return out;
    }

    /** What a policy reads of one job on a GPU, without a view of it ({@link #readOccupants}). */
    @FunctionalInterface
    interface OccupantReader {
        void read(Job job, double startedAt, double remainingIterations, double attainedGpuSeconds, boolean lengthKnown);
    }

    /**
     * Hands each running job on a GPU to {@code reader}, in {@link #runningOn}'s order, with what its view would say. A
     * world that holds its jobs per GPU answers without building views: tandem's preemption reads the occupants of
     * up to 256 GPUs a round, and making a view of each was an eighth of a 100,000-job simulation.
     */
    default void readOccupants(int gpu, OccupantReader reader) {
        for (RunningJob r : runningOn(gpu)) reader.read(r.job(), r.startedAt(), r.remainingIterations(), r.attainedGpuSeconds(), r.lengthKnown());
    }

    /**
     * A reading of a running job's remaining iterations as its view would say them at the time it is read, for as long
     * as the job keeps running; null where the world has only the views (or the job is not running). SRTF keeps one per
     * running job and reads the few it must key again at a decision: looking each up and making its view was most of
     * its time on 100,000 jobs.
     */
    default DoubleSupplier remainingReader(String id) { return null; }

    /** The job itself, without building its full running view. */
    default Optional<Job> jobOf(String id) { return job(id).map(RunningJob::job); }

    /** The GPUs a running job holds; empty if it is not running. */
    default List<Integer> gpusOf(String id) { return job(id).map(RunningJob::gpus).orElse(List.of()); }

    /** Running jobs alone on all of their GPUs: the only hosts a co-locating policy can add a partner to. */
    Collection<RunningJob> soleTenants();

    /** As {@link #soleTenants()}, only the jobs (cheaper where views are built on demand). */
    default Collection<Job> soleTenantJobs() { return soleTenants().stream().map(RunningJob::job).toList(); }

    /**
     * Running jobs whose speed next to their current neighbours was measured since the previous decision
     * (introspecting policies judge each new measurement once).
     */
    Collection<RunningJob> newlyObserved();

    /** Builds the indexes from the running jobs: O(running + nodes); every observed job counts as newly observed. */
    static Occupancy of(Cluster cluster, List<RunningJob> running) {
        return of(cluster, running, Set.of());
    }

    /** As {@link #of(Cluster, List)}, with GPUs the scheduler may not use ({@link #usable}). */
    static Occupancy of(Cluster cluster, List<RunningJob> running, Set<Integer> unusable) {
        Map<Integer, List<String>> on = new HashMap<>();
        Map<String, RunningJob> byId = new HashMap<>();
        for (RunningJob r : running) {
            byId.put(r.id(), r);
            for (int g : r.gpus()) on.computeIfAbsent(g, x -> new ArrayList<>(2)).add(r.id());
        }
        int[] idle = new int[cluster.nodes().size()];
        for (int n = 0; n < idle.length; n++) idle[n] = cluster.nodes().get(n).gpus().size();
        Set<Integer> taken = new HashSet<>(on.keySet());
        taken.addAll(unusable);
        java.util.BitSet notUsable = new java.util.BitSet(); // asked per GPU in the policies' inner loops: no boxing
        for (int g : unusable) notUsable.set(g);
        for (int g : taken) idle[cluster.nodeIndexOf(g)]--;
        int total = cluster.gpuCount() - taken.size();
        int sharedGpus = (int) on.values().stream().filter(ids -> ids.size() > 1).count();
        IdleNodeBuckets buckets = new IdleNodeBuckets(cluster, idle);
        List<RunningJob> sole = new ArrayList<>(), observed = new ArrayList<>();
        for (RunningJob r : running) {
            if (r.gpus().stream().allMatch(g -> on.get(g).size() == 1 && !notUsable.get(g))) sole.add(r);
            if (!Double.isNaN(r.observedSpeed())) observed.add(r);
        }
        return new Occupancy() {
            @Override public int idleTotal() { return total; }
            @Override public int idleOnNode(int node) { return idle[node]; }
            @Override public int nodeWithIdle(int count, int from) { return buckets.next(count, from); }
            @Override public int sharedGpus() { return sharedGpus; }
            @Override public List<String> jobsOn(int gpu) { return on.getOrDefault(gpu, List.of()); }
            @Override public boolean usable(int gpu) { return !notUsable.get(gpu); }
            @Override public Optional<RunningJob> job(String id) { return Optional.ofNullable(byId.get(id)); }
            @Override public Collection<RunningJob> soleTenants() { return sole; }
            @Override public Collection<RunningJob> newlyObserved() { return observed; }
        };
    }
}
