package dev.tandem.core.policy;

import java.util.List;

/** What a policy asks the world to do. Every decision carries a short human-readable reason. */
public sealed interface Decision {
    String jobId();

    String reason();

    /** Start (or resume) a queued job on these GPUs; GPUs already in use mean co-location with their jobs. */
    record Start(String jobId, List<Integer> gpus, String reason) implements Decision {
        public Start {
            gpus = List.copyOf(gpus);
        }
    }

    /** Suspend a running job (it checkpoints and goes back to the queue). */
    record Preempt(String jobId, String reason) implements Decision {}

    /**
     * Hold GPUs for a waiting gang (EASY backfilling): until it starts, the policy gives them only to work it
     * expects to be done before they are all free, so single-GPU work that keeps arriving cannot starve the gang.
     * The policy keeps the hold in its own decisions; the world checks it (a queued job, GPUs that could take the
     * gang), shows it to users and records it. A policy re-issues it at every decision the hold lasts: a decision
     * without it ends the hold ({@code dev.tandem.core.runtime.Reservations}).
     *
     * @param readyInSeconds when the policy expects the GPUs to be free, in seconds from the decision (may be infinite)
     */
    record Reserve(String jobId, List<Integer> gpus, double readyInSeconds, String reason) implements Decision {
        public Reserve {
            gpus = List.copyOf(gpus);
        }
    }

    /** Move a running job to other GPUs (suspend, then resume there). */
    record Migrate(String jobId, List<Integer> gpus, String reason) implements Decision {
        public Migrate {
            gpus = List.copyOf(gpus);
        }
    }
}
