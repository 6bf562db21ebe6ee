package dev.tandem.core.policy;

import dev.tandem.core.model.Job;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * Who runs where, as the world indexes it, so that policies find idle GPUs and lone jobs without scanning
 * the whole cluster or every running job. Every world keeps them up to date as jobs start and stop, in its
 * {@link dev.tandem.core.runtime.Placements}, and hands them over as a {@link dev.tandem.core.runtime.PlacedOccupancy}
 * ({@code PlacedOccupancy.of} builds them from a list of running jobs, for tests and benchmarks).
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

    /** Whether every GPU is {@link #usable}: a policy then need not ask about each (simulated GPUs always are). */
    default boolean allUsable() { return true; }

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
     * Hands every running job to {@code reader}, in the order of the snapshot's {@link SchedulerSnapshot#running() running
     * list}, with what its view would say. Sums over every running job (tandem's plan and its work per GPU, every 300 s)
     * read this rather than the list: a world that holds its jobs itself makes no view of each.
     */
    void readRunning(OccupantReader reader);

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
}
