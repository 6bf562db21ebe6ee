package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one check of a policy's decision, step by step, in every world: whether the job is where the decision needs
 * it (waiting for a start or a hold, running for a preemption or a move) and whether it may go where the decision
 * puts it ({@link PlacementRules}, {@link Reservations#refusal}). The simulator fails the run on a refusal (a policy
 * bug); the daemon skips the step, logs it at WARN, counts it and notes it in the job's history (the world may have
 * moved since the snapshot). Both worlds walk a decision through {@link DecisionCarrier}, which holds the one view of
 * a world these rules check against and what happens to an accepted step (start at once, or once the GPUs the same
 * decision freed are empty).
 *
 * <p>Where a job is for a step, the rules keep themselves: as the policy was shown it (a waiting job the queue's rules
 * held back was not shown, and is in no phase the decision may name), then as the decision's earlier steps moved it (a
 * job suspended by an earlier step waits again, one started or moved runs). The worlds carry out those steps in their
 * own time (the simulator at once, the daemon once a run has checkpointed and exited), so neither tells the rules where
 * a job is after one: the phase a step is checked against is the same in every world. Who is on a GPU is the world's
 * to say, without the jobs earlier steps stopped.
 *
 * <p>A world carries out a whole decision with {@link #apply}: the walk over its steps (which are checked, which
 * holds the decision names, what its end changes in {@link Reservations}) is the same in every world; what a world
 * does with a step it accepts or refuses is given as {@link Steps}.
 */
public final class DecisionRules {
    /** A world as the rules see it, at one step of a decision. */
    public interface World {
        Cluster cluster();

        /**
         * The job's phase as the policy was shown it (running for a job shown among the running ones), or null; a waiting
         * job counts only if it was in the queue the policy was shown ({@link #apply}). Not asked for jobs the decision's
         * earlier steps moved.
         */
        Lifecycle.Phase phase(String jobId);

        /** The job's gang size. */
        int gpus(String jobId);

        /** Why the job may not share a GPU, or null. */
        String runsAlone(String jobId);

        /** The jobs on a GPU, without the job {@code exceptJobId} (being moved) and without jobs earlier steps stopped. */
        List<PlacementRules.Tenant> tenantsOn(int gpu, String exceptJobId);

        /** Why no job may be placed on a GPU now (busy with processes that are not the scheduler's), or null. */
        default String unusable(int gpu) { return null; }
    }

    /** What a world does with the steps of a decision, in the order the policy gave them. */
    public interface Steps {
        /** Whether the world knows the job a step names at all (an unknown one is {@link #unknown}, not checked). */
        boolean knows(String jobId);

        /** A step naming a job the world does not know. */
        void unknown(Decision d);

        /** A step the rules refuse ({@link #refusal}); the decision's later steps are still checked and carried out. */
        void refused(Decision d, String why);

        void start(Decision.Start s);

        void preempt(Decision.Preempt p);

        void migrate(Decision.Migrate m);
    }

    private DecisionRules() {}

    /**
     * Carries out a decision of a policy that was shown every waiting job ({@link #apply(List, List, World, Reservations,
     * double, Steps)}).
     */
    public static Reservations.Changes apply(List<Decision> decision, World w, Reservations reservations, double now, Steps steps) {
        return apply(decision, null, w, reservations, now, steps);
    }

    /**
     * Carries out one decision of a policy in a world, step by step: each step is checked against where its job is
     * after the earlier ones ({@link #refusal}); an accepted start, preemption or move goes to {@code steps}; the holds the
     * decision names ({@link Decision.Reserve}) replace the previous decision's in {@code reservations} at its end, but
     * for those of jobs the same decision starts (a start ends its job's hold, also one named earlier in the decision, and
     * a hold a start ends is not among those the decision ended, whenever the world gets the job going).
     *
     * @param shownQueue the waiting jobs the policy was shown (the queue's rules may hold some back), or null for all
     * @param now        the world's time, which a hold's expected free time counts from
     * @return what the decision changed in the holds
     */
    public static Reservations.Changes apply(List<Decision> decision, List<PendingJob> shownQueue, World w, Reservations reservations, double now,
                                             Steps steps) {
        Phases phases = new Phases(w, shownQueue);
        List<Decision.Reserve> holds = new ArrayList<>();
        for (Decision d : decision) {
            if (!steps.knows(d.jobId())) {
                steps.unknown(d);
                continue;
            }
            Lifecycle.Phase phase = phases.of(d.jobId());
            Optional<String> why = refusal(d, phase, w, holds);
            if (why.isPresent()) {
                steps.refused(d, why.get());
                continue;
            }
            if (!(d instanceof Decision.Reserve)) phases.moved(d.jobId(), Lifecycle.after(phase, Lifecycle.stepOf(d)));
            switch (d) {
                case Decision.Reserve r -> holds.add(r);
                case Decision.Start s -> {
                    holds.removeIf(r -> r.jobId().equals(s.jobId()));
                    reservations.left(s.jobId()); // it starts now (on the GPUs held for it or elsewhere): its hold is over, not ended
                    steps.start(s);
                }
                case Decision.Preempt p -> steps.preempt(p);
                case Decision.Migrate m -> steps.migrate(m);
            }
        }
        return reservations.decided(holds, now);
    }

    /** Where each job a decision names is, for its next step: as the policy was shown it, then as earlier steps moved it. */
    private static final class Phases {
        private final World world;
        private final List<PendingJob> shownQueue;
        /** The ids of {@link #shownQueue}, gathered when a step first asks about a waiting job. */
        private Set<String> shownIds;
        /** The jobs the decision's accepted steps moved, and where to. */
        private final Map<String, Lifecycle.Phase> moved = new HashMap<>();

        Phases(World world, List<PendingJob> shownQueue) {
            this.world = world;
            this.shownQueue = shownQueue;
        }

        Lifecycle.Phase of(String id) {
            Lifecycle.Phase p = moved.get(id);
            if (p != null) return p;
            p = world.phase(id);
            return p == Lifecycle.Phase.WAITING && !shown(id) ? null : p;
        }

        private boolean shown(String id) {
            if (shownQueue == null) return true;
            if (shownIds == null) {
                shownIds = new HashSet<>();
                for (PendingJob j : shownQueue) shownIds.add(j.id());
            }
            return shownIds.contains(id);
        }

        void moved(String id, Lifecycle.Phase to) {
            moved.put(id, to);
        }
    }

    /**
     * Why the world may not carry out {@code d}, or empty when it may, with the job where the world says it is.
     *
     * @param holdsSoFar the holds the same decision named before {@code d} and the world accepted
     */
    public static Optional<String> refusal(Decision d, World w, List<Decision.Reserve> holdsSoFar) {
        return refusal(d, w.phase(d.jobId()), w, holdsSoFar);
    }

    private static Optional<String> refusal(Decision d, Lifecycle.Phase phase, World w, List<Decision.Reserve> holdsSoFar) {
        String id = d.jobId();
        return switch (d) {
            case Decision.Start s -> inPhase(id, phase, d).or(() -> placement(id, s.gpus(), w));
            case Decision.Migrate m -> inPhase(id, phase, d).or(() -> placement(id, m.gpus(), w));
            case Decision.Preempt p -> inPhase(id, phase, d);
            case Decision.Reserve r -> Reservations.refusal(r, phase == Lifecycle.Phase.WAITING, w.gpus(id), w.cluster(), holdsSoFar);
        };
    }

    /** Why the job is not where the decision's step ({@link Lifecycle#stepOf}) takes it from, or empty. */
    private static Optional<String> inPhase(String id, Lifecycle.Phase phase, Decision d) {
        Lifecycle.Step step = Lifecycle.stepOf(d);
        if (phase == null) {
            return Optional.of("job " + id + (step == Lifecycle.Step.START ? " is not waiting" : " is not running") + ": " + step.rule());
        }
        return Lifecycle.refusal(phase, step).map(why -> "job " + id + " " + why);
    }

    private static Optional<String> placement(String id, List<Integer> gpus, World w) {
        return PlacementRules.refusal(w.gpus(id), gpus, w.cluster(), w.runsAlone(id), g -> w.tenantsOn(g, id), w::unusable);
    }
}
