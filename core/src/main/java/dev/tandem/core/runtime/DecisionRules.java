package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policy.Decision;

import java.util.List;
import java.util.Optional;

/**
 * The one check of a policy's decision, step by step, in every world: whether the job is where the decision needs
 * it (waiting for a start or a hold, running for a preemption or a move) and whether it may go where the decision
 * puts it ({@link PlacementRules}, {@link Reservations#refusal}). The simulator fails the run on a refusal (a policy
 * bug); the daemon skips the step, logs it at WARN, counts it and notes it in the job's history (the world may have
 * moved since the snapshot). What a world then does with an accepted step (start at once, or once the GPUs the
 * same decision freed are empty) is its own.
 *
 * <p>Each world answers for itself as the decision's earlier steps leave it: a job suspended by an earlier step waits
 * again, a job stopped by an earlier step (or being moved) is on no GPU for the later ones.
 */
public final class DecisionRules {
    /** A world as the rules see it, at one step of a decision. */
    public interface World {
        Cluster cluster();

        /** Whether the job waits in the queue the policy was given (or was suspended by an earlier step). */
        boolean waiting(String jobId);

        /** Whether the job runs (and no earlier step stopped it). */
        boolean running(String jobId);

        /** The job's gang size. */
        int gpus(String jobId);

        /** Why the job may not share a GPU, or null. */
        String runsAlone(String jobId);

        /** The jobs on a GPU, without the job {@code exceptJobId} (being moved) and without jobs earlier steps stopped. */
        List<PlacementRules.Tenant> tenantsOn(int gpu, String exceptJobId);

        /** Why no job may be placed on a GPU now (busy with processes that are not the scheduler's), or null. */
        default String unusable(int gpu) { return null; }
    }

    private DecisionRules() {}

    /**
     * Why the world may not carry out {@code d}, or empty when it may.
     *
     * @param holdsSoFar the holds the same decision named before {@code d} and the world accepted
     */
    public static Optional<String> refusal(Decision d, World w, List<Decision.Reserve> holdsSoFar) {
        String id = d.jobId();
        return switch (d) {
            case Decision.Start s -> w.waiting(id) ? placement(id, s.gpus(), w) : Optional.of(notWaiting(id, w));
            case Decision.Migrate m -> w.running(id) ? placement(id, m.gpus(), w) : Optional.of(notRunning(id, w));
            case Decision.Preempt p -> w.running(id) ? Optional.empty() : Optional.of(notRunning(id, w));
            case Decision.Reserve r -> Reservations.refusal(r, w.waiting(id), w.gpus(id), w.cluster(), holdsSoFar);
        };
    }

    private static Optional<String> placement(String id, List<Integer> gpus, World w) {
        return PlacementRules.refusal(w.gpus(id), gpus, w.cluster(), w.runsAlone(id), g -> w.tenantsOn(g, id), w::unusable);
    }

    private static String notWaiting(String id, World w) {
        return "job " + id + (w.running(id) ? " is running" : " is not waiting") + ": only a waiting job is started";
    }

    private static String notRunning(String id, World w) {
        return "job " + id + (w.waiting(id) ? " is waiting" : " is not running") + ": only a running job is suspended or moved";
    }
}
