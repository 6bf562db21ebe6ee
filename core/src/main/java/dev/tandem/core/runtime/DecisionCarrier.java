package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Carries out a policy's decisions in a world, the same way in every world, and keeps what a world whose runs stop in
 * their own time has underway. Each step is checked by {@link DecisionRules} against the one view of the world written
 * here (a job with a run is running; the runs being stopped are on no GPU; a job promised GPUs is on them); the world's
 * {@link World} then starts or stops runs. What this class keeps between decisions:
 * <ul>
 *   <li>the GPUs the policy holds for waiting gangs ({@link #holds}: each decision's holds replace the last's);</li>
 *   <li>the runs being stopped ({@link Stopping}: why, and where a moved job goes next). A later step about such a job
 *       changes what happens once its run has left: a suspended job started again (a re-packing policy suspends a
 *       guest, then moves it back once later steps freed its partner's GPUs) is moved instead, a moved one suspended
 *       stays off GPUs, a moved one moved again goes where the last step said;</li>
 *   <li>the waiting jobs promised GPUs that runs being stopped still hold ({@link #promised}): they start once those
 *       runs have left ({@link #keepPromises}), as they would at the moment of the decision where a stop is over at
 *       once.</li>
 * </ul>
 * The simulator's stops are over at once ({@link Outcome#DONE}), so it never has either: its decisions take the same
 * paths through this class as the daemon's whose stops end before its next step. The daemon's runs checkpoint and exit
 * in their own time ({@link Outcome#UNDERWAY}): it tells of each run that left with {@link #left}, and of each move
 * whose run left with {@link #moved}.
 *
 * @param <K> how the world keys its jobs (as in its {@link Placements})
 * @param <R> what the world places: its job, or its run of a job
 * @param <P> what the world keeps with a promise for the start it promises (the daemon: the decision's snapshot, whose
 *            predictions the start records)
 */
public final class DecisionCarrier<K, R, P> {
    /** Why a run is being stopped. */
    public enum Stop {
        /** The policy suspended its job, which waits again. */
        SUSPEND,
        /** The policy moved its job, which starts again on {@link Stopping#moveTo}. */
        MOVE,
        /** Its job ended (cancelled, failed): no step of a policy changes that. */
        END
    }

    /** A run being stopped: why, and where its job starts next when moved. */
    public record Stopping(Stop why, List<Integer> moveTo) {}

    /** A start promised GPUs that runs being stopped still hold. */
    public record Promise<P>(List<Integer> gpus, String reason, P detail) {}

    /** What a world's stop came to. */
    public enum Outcome {
        /** Over: the run has left its GPUs (and a moved job is on its new ones). */
        DONE,
        /** Begun: the run leaves its GPUs in its own time ({@link #left}). */
        UNDERWAY,
        /** Not made (the world found the job changed meanwhile). */
        NOT
    }

    /** A world as this class sees it: its jobs, and its hands for runs. */
    public interface World<K, R, P> {
        Cluster cluster();

        /** The key of the job a decision names, or null when the world does not know it. */
        K key(String jobId);

        /** The job's id as the policy names it. */
        String id(K job);

        /** The phase of a job that has no run (waiting, done, not yet submitted), or null for one the world does not know. */
        Lifecycle.Phase phase(K job);

        /** The job's gang size. */
        int gpus(K job);

        /** Why the job may not share a GPU, or null. */
        String runsAlone(K job);

        /** The GPUs a run holds. */
        List<Integer> gpusOf(R run);

        /** Why a run takes no partner now, being stopped aside (profiled alone, must run alone), or null. */
        String busy(R run);

        /** Why no job may be placed on a GPU now, or null. */
        default String unusable(int gpu) { return null; }

        /** Whether runs can be started now; asked once per decision, before its first start (false: the jobs wait). */
        default boolean ready() { return true; }

        /** Starts a run of a waiting job on GPUs the rules accepted. */
        void start(K job, List<Integer> gpus, String reason, P detail);

        /**
         * Stops a job's run for a step of the policy: {@code step} suspends it ({@link Stop#SUSPEND}) or moves it to
         * {@code moveTo} ({@link Stop#MOVE}).
         */
        Outcome stop(K job, Stop why, List<Integer> moveTo, Decision step);

        /** A step naming a job the world does not know. */
        void unknown(Decision step);

        /** A step, or a promised start or a move whose time came ({@code step} says which), that the rules refuse. */
        void refused(K job, Decision step, String why);

        /** A step changed where the job of a run being stopped goes next ({@code now}). */
        default void redirected(K job, Stopping now, Decision step) {}

        /** A promise dropped unkept: its job no longer waits, or its placement is refused now. */
        default void promiseDropped(K job) {}
    }

    private final Placements<K, R> placements;
    /** The GPUs the policy holds for waiting gangs, as its last decision named them. */
    private final Reservations holds = new Reservations();
    private final Map<K, Stopping> stopping = new HashMap<>();
    private final Map<K, Promise<P>> promised = new LinkedHashMap<>();

    /** @param placements the world's ledger of who holds which GPUs */
    public DecisionCarrier(Placements<K, R> placements) {
        this.placements = placements;
    }

    /**
     * Carries out one decision ({@link DecisionRules#apply}).
     *
     * @param shownQueue the waiting jobs the policy was shown, or null for all
     * @param detail     what a promise made by this decision keeps for its start
     * @return what the decision changed in the holds
     */
    public Reservations.Changes apply(List<Decision> decision, List<PendingJob> shownQueue, World<K, R, P> world, double now, P detail) {
        Steps steps = new Steps(world, detail);
        return DecisionRules.apply(decision, shownQueue, steps, holds, now, steps);
    }

    /** The GPUs held for waiting gangs, as the policy's last decision named them (a world shows them, and says why a job waits). */
    public Reservations holds() { return holds; }

    /** Why the job's run is being stopped, or null. */
    public Stopping stopping(K job) {
        return stopping.isEmpty() ? null : stopping.get(job);
    }

    /**
     * A stop the world began itself (a cancel, a time limit, a restart finding the job no longer running); a run already
     * being stopped keeps its reason.
     */
    public void beganStopping(K job, Stop why) {
        stopping.putIfAbsent(job, new Stopping(why, List.of()));
    }

    /** The job's run has left its GPUs (the world has taken it off them): why it was being stopped, or null. */
    public Stopping left(K job) {
        return stopping.isEmpty() ? null : stopping.remove(job);
    }

    /** The jobs promised GPUs, and those GPUs, in the order promised. */
    public Map<K, List<Integer>> promised() {
        if (promised.isEmpty()) return Map.of();
        Map<K, List<Integer>> out = new LinkedHashMap<>();
        promised.forEach((k, p) -> out.put(k, p.gpus()));
        return Collections.unmodifiableMap(out);
    }

    /**
     * The job of a run stopped to move it has left its GPUs: it starts on {@code gpus} now, or once runs being stopped
     * there have left (a promise), or not at all where the rules refuse it there (it waits for the policy).
     */
    public void moved(World<K, R, P> world, K job, List<Integer> gpus, String reason, P detail) {
        if (promisedOrRefused(world, job, gpus, reason, new Decision.Migrate(world.id(job), gpus, reason), detail)) return;
        world.start(job, gpus, reason, detail);
    }

    /**
     * Starts the promised jobs whose GPUs no run being stopped holds any more, each as the decision said; a job that no
     * longer waits, or whose placement the rules refuse now, loses its promise (and the policy decides again).
     */
    public void keepPromises(World<K, R, P> world) {
        for (Iterator<Map.Entry<K, Promise<P>>> it = promised.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<K, Promise<P>> e = it.next();
            Promise<P> p = e.getValue();
            if (stillStopping(p.gpus())) continue;
            it.remove();
            K job = e.getKey();
            if (world.phase(job) != Lifecycle.Phase.WAITING) {
                world.promiseDropped(job);
                continue;
            }
            Optional<String> refusal = refuseStart(world, job, p.gpus(), true);
            if (refusal.isPresent()) {
                world.refused(job, new Decision.Start(world.id(job), p.gpus(), p.reason()), refusal.get());
                world.promiseDropped(job);
                continue;
            }
            world.start(job, p.gpus(), p.reason(), p.detail());
        }
    }

    private boolean stillStopping(List<Integer> gpus) {
        for (int g : gpus) {
            for (K k : placements.keysOn(g)) if (stopping.containsKey(k)) return true;
        }
        return false;
    }

    /**
     * Whether a job placed on {@code gpus} must not start there now: the GPUs are promised to it, because only runs
     * being stopped keep it off them, or the rules refuse the placement. False: it may start now.
     */
    private boolean promisedOrRefused(World<K, R, P> world, K job, List<Integer> gpus, String reason, Decision step, P detail) {
        Optional<String> refusal = refuseStart(world, job, gpus, true);
        if (refusal.isEmpty()) return false;
        if (refuseStart(world, job, gpus, false).isEmpty()) promised.put(job, new Promise<>(List.copyOf(gpus), reason, detail));
        else world.refused(job, step, refusal.get());
        return true;
    }

    /** @param withStopping false: as if the runs being stopped had left their GPUs already */
    private Optional<String> refuseStart(World<K, R, P> world, K job, List<Integer> gpus, boolean withStopping) {
        return PlacementRules.refusal(world.gpus(job), gpus, world.cluster(), world.runsAlone(job), g -> tenants(world, g, withStopping, null, false),
                world::unusable);
    }

    /**
     * The jobs on a GPU as the placement rules see them: its runs (those being stopped only {@code withStopping}, busy
     * then), without the job {@code exceptJobId} (being moved; null: none), and {@code withPromised} the jobs promised
     * it, as they will run there.
     */
    private List<PlacementRules.Tenant> tenants(World<K, R, P> world, int gpu, boolean withStopping, String exceptJobId, boolean withPromised) {
        List<R> on = placements.on(gpu);
        boolean promises = withPromised && !promised.isEmpty(); // never where stops are over at once
        if (on.isEmpty() && !promises) return List.of();
        List<K> keys = placements.keysOn(gpu); // in on's order, kept by the ledger: no key worked out again per run
        List<PlacementRules.Tenant> out = new ArrayList<>(on.size() + 1);
        for (int i = 0; i < on.size(); i++) { // indexed: the simulator asks this at every start
            R r = on.get(i);
            K k = keys.get(i);
            boolean stops = !stopping.isEmpty() && stopping.containsKey(k);
            if (stops && !withStopping) continue;
            String id = world.id(k);
            if (id.equals(exceptJobId)) continue;
            out.add(new PlacementRules.Tenant(id, world.gpusOf(r), stops ? "job " + id + " is stopping" : world.busy(r)));
        }
        if (promises) {
            promised.forEach((k, p) -> {
                String id = world.id(k);
                if (!p.gpus().contains(gpu) || id.equals(exceptJobId)) return;
                String alone = world.runsAlone(k); // as it will run: alone if it must
                out.add(new PlacementRules.Tenant(id, p.gpus(), alone == null ? null : PlacementRules.mustRunAlone(id, alone)));
            });
        }
        return out;
    }

    /** One decision's walk: the world as the rules see it, and what each accepted step does. */
    private final class Steps implements DecisionRules.World, DecisionRules.Steps {
        private final World<K, R, P> world;
        private final P detail;
        /** Asked once per decision, and only when something is to start. */
        private Boolean ready;

        Steps(World<K, R, P> world, P detail) {
            this.world = world;
            this.detail = detail;
        }

        private K key(String jobId) { return world.key(jobId); }

        @Override public Cluster cluster() { return world.cluster(); }

        /** A job with a run is running (the policy was shown every run, being stopped or not); any other as the world says. */
        @Override public Lifecycle.Phase phase(String jobId) {
            K k = key(jobId);
            return placements.get(k) != null ? Lifecycle.Phase.RUNNING : world.phase(k);
        }

        @Override public int gpus(String jobId) { return world.gpus(key(jobId)); }

        @Override public String runsAlone(String jobId) { return world.runsAlone(key(jobId)); }

        /**
         * The runs on the GPU that are not being stopped, and the jobs promised it: those are on it for the rules, as a
         * job started there is where stops are over at once (at most two jobs per GPU counts them, and one that must run
         * alone takes no partner).
         */
        @Override public List<PlacementRules.Tenant> tenantsOn(int gpu, String exceptJobId) {
            return tenants(world, gpu, false, exceptJobId, true);
        }

        @Override public String unusable(int gpu) { return world.unusable(gpu); }

        @Override public boolean knows(String jobId) { return key(jobId) != null; }

        @Override public void unknown(Decision d) { world.unknown(d); }

        @Override public void refused(Decision d, String why) { world.refused(key(d.jobId()), d, why); }

        /**
         * Starts a waiting job. A job whose run an earlier step of this decision (or an earlier decision) is stopping
         * starts there once that run has left: its stop becomes a move.
         */
        @Override public void start(Decision.Start s) {
            K job = key(s.jobId());
            if (placements.get(job) != null) {
                redirect(job, Stop.MOVE, s.gpus(), s);
                return;
            }
            begin(job, s.gpus(), s.reason(), s);
        }

        /** Starts a job now, or promises it the GPUs that runs being stopped still hold. */
        private void begin(K job, List<Integer> gpus, String reason, Decision step) {
            if (ready == null) ready = world.ready();
            if (!ready) return; // the jobs wait in the queue; the policy is asked again
            // with no run being stopped the rules' own check, just made, is this one
            if (!stopping.isEmpty() && promisedOrRefused(world, job, gpus, reason, step, detail)) return;
            world.start(job, gpus, reason, detail);
        }

        /** Suspends a running job; one promised GPUs by this decision waits again, one being moved stays off GPUs instead. */
        @Override public void preempt(Decision.Preempt p) {
            K job = key(p.jobId());
            if (!promised.isEmpty() && promised.remove(job) != null) return;
            Stopping st = stopping(job);
            if (st != null && st.why() == Stop.MOVE) redirect(job, Stop.SUSPEND, List.of(), p);
            else stop(job, Stop.SUSPEND, List.of(), p); // (a run already being suspended goes on)
        }

        /** Moves a running job; one promised GPUs by this decision starts on the new ones instead, one being stopped goes there next. */
        @Override public void migrate(Decision.Migrate m) {
            K job = key(m.jobId());
            if (!promised.isEmpty() && promised.remove(job) != null) {
                begin(job, m.gpus(), m.reason(), m);
                return;
            }
            Stopping st = stopping(job);
            if (st != null && st.why() != Stop.END) redirect(job, Stop.MOVE, m.gpus(), m);
            else stop(job, Stop.MOVE, m.gpus(), m);
        }

        private void stop(K job, Stop why, List<Integer> moveTo, Decision step) {
            if (placements.get(job) == null || stopping(job) != null) return; // never started (the world was not ready), or stopping already
            stopping.put(job, new Stopping(why, List.copyOf(moveTo))); // before the world's hands act: the run is stopping from here on
            if (world.stop(job, why, moveTo, step) != Outcome.UNDERWAY) stopping.remove(job);
        }

        /** A step about a job whose run is being stopped for the policy: where it goes once the run has left. */
        private void redirect(K job, Stop to, List<Integer> moveTo, Decision step) {
            Stopping st = stopping(job);
            if (st == null || st.why() == Stop.END) return; // a run no step stopped (its job ended meanwhile) is left alone
            Stopping next = new Stopping(to, List.copyOf(moveTo));
            stopping.put(job, next);
            world.redirected(job, next, step);
        }
    }
}
