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

    /** Move a running job to other GPUs (suspend, then resume there). */
    record Migrate(String jobId, List<Integer> gpus, String reason) implements Decision {
        public Migrate {
            gpus = List.copyOf(gpus);
        }
    }
}
