package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policy.Occupancy;
import dev.tandem.core.policy.RunningJob;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A world's {@link Placements} as its policy reads them: the counts and the lone jobs the ledger keeps as jobs come and
 * go, and each placed job as the world shows it ({@link #view}). Every world hands its policy one of these, so the
 * policy reads the same indexes, in the same order, wherever it runs; a world adds only how it makes a job's view.
 *
 * @param <K> what the world tells its jobs apart by ({@link Placements})
 * @param <R> what the world places
 */
public abstract class PlacedOccupancy<K, R> implements Occupancy {
    protected final Placements<K, R> placements;

    protected PlacedOccupancy(Placements<K, R> placements) {
        this.placements = placements;
    }

    /** A placed job as the policy sees it, or null where the world cannot show it (live: a run whose job record is gone). */
    protected abstract RunningJob view(R job);

    /** The world's key for a job id a policy names, or null where the id can name none of its jobs. */
    protected abstract K key(String id);

    /** A job id as policies know it. */
    protected abstract String id(K key);

    @Override public int idleTotal() { return placements.idleTotal(); }

    @Override public int idleOnNode(int node) { return placements.idleOnNode(node); }

    @Override public int nodeWithIdle(int count, int from) { return placements.nodeWithIdle(count, from); }

    @Override public int sharedGpus() { return placements.sharedGpus(); }

    @Override public int countOn(int gpu) { return placements.countOn(gpu); }

    @Override public boolean usable(int gpu) { return placements.usable(gpu); }

    @Override public boolean allUsable() { return placements.unusableCount() == 0; }

    @Override public List<String> jobsOn(int gpu) {
        List<K> keys = placements.keysOn(gpu);
        if (keys.isEmpty()) return List.of();
        List<String> out = new ArrayList<>(keys.size());
        for (K k : keys) out.add(id(k));
        return out;
    }

    @Override public Optional<RunningJob> job(String id) {
        K k = key(id);
        R r = k == null ? null : placements.get(k);
        return r == null ? Optional.empty() : Optional.ofNullable(view(r));
    }

    @Override public List<RunningJob> runningOn(int gpu) {
        List<R> on = placements.on(gpu);
        if (on.isEmpty()) return List.of();
        List<RunningJob> out = new ArrayList<>(on.size());
        for (R r : on) {
            RunningJob v = view(r);
            if (v != null) out.add(v);
        }
        return out;
    }

    /** In the ledger's order, which every world's running list keeps ({@link Placements#all}). */
    @Override public void readRunning(OccupantReader reader) {
        for (R r : placements.all()) {
            RunningJob v = view(r);
            if (v != null) reader.read(v.job(), v.startedAt(), v.remainingIterations(), v.attainedGpuSeconds(), v.lengthKnown());
        }
    }

    @Override public Collection<RunningJob> soleTenants() {
        List<RunningJob> out = new ArrayList<>(placements.alone().size());
        for (R r : placements.alone()) {
            RunningJob v = view(r);
            if (v != null) out.add(v);
        }
        return out;
    }

    /**
     * The indexes of a list of running jobs, for a world that keeps no ledger of its own (tests, benchmarks): placed in
     * the list's order, so each GPU's occupants and the lone jobs keep it; every job already measured counts as newly
     * measured. O(running + nodes).
     */
    public static Occupancy of(Cluster cluster, List<RunningJob> running, Set<Integer> unusable) {
        Placements<String, RunningJob> placements = new Placements<>(cluster, RunningJob::id);
        for (RunningJob r : running) placements.adopt(r, r.gpus());
        for (int g : unusable) placements.setUsable(g, false);
        List<RunningJob> measured = new ArrayList<>();
        for (RunningJob r : running) if (!Double.isNaN(r.observedSpeed())) measured.add(r);
        return new PlacedOccupancy<>(placements) {
            @Override protected RunningJob view(RunningJob job) { return job; }

            @Override protected String key(String id) { return id; }

            @Override protected String id(String key) { return key; }

            @Override public List<String> jobsOn(int gpu) { return placements.keysOn(gpu); }

            @Override public Collection<RunningJob> soleTenants() { return placements.alone(); }

            @Override public Collection<RunningJob> newlyObserved() { return measured; }
        };
    }

    /** As {@link #of(Cluster, List, Set)}, with every GPU usable. */
    public static Occupancy of(Cluster cluster, List<RunningJob> running) {
        return of(cluster, running, Set.of());
    }
}
