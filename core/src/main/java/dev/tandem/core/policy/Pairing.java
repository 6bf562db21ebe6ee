package dev.tandem.core.policy;

import dev.tandem.core.model.Job;
import dev.tandem.core.runtime.PlacementRules;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a waiting job may join a running one on its GPUs: the conflicts no policy may pair past, written once
 * (gang size, a job that must run alone, memory, an earlier out-of-memory crash of the pair).
 * Every co-locating policy filters its candidate hosts with {@link #conflict}, and each policy adds its own rule
 * ({@link Policy#pairingRefusal}); the daemon's "why is my job waiting" asks the same two, so its answer cannot
 * contradict what the policy decided. The world checks the placement itself again when it applies a decision
 * ({@link dev.tandem.core.runtime.PlacementRules}).
 */
public final class Pairing {
    /** Why two jobs may not share, whatever the policy. */
    public enum Conflict {
        /** A gang shares only with a gang of its own size on the same GPUs. */
        GANG_SIZE,
        /** The two workloads ran out of memory together before. */
        CRASHED_TOGETHER,
        /** Their memory, each with the per-job margin, exceeds the host's GPUs. */
        MEMORY,
        /** One of them must run alone ({@link SchedulerSnapshot#runsAlone}). */
        RUNS_ALONE
    }

    private Pairing() {}

    /**
     * The conflict between a guest and a host alone on GPUs of {@code capacityMiB} each, or null where they may share.
     * Allocation-free: asked per candidate host class and queued job in every round of every packing policy.
     *
     * @param hostChargedMiB the memory the host is charged on its GPUs (its need plus the margin)
     */
    public static Conflict conflict(SchedulerSnapshot s, Job guest, Job host, long hostChargedMiB, long capacityMiB) {
        return conflict(s, guest, s.memoryRule().charged(s.memoryNeed(guest)), host, hostChargedMiB, capacityMiB);
    }

    /** As above, with the guest's charged memory worked out once by a caller that tries it against many hosts. */
    public static Conflict conflict(SchedulerSnapshot s, Job guest, long guestChargedMiB, Job host, long hostChargedMiB, long capacityMiB) {
        if (guest.gpus() != host.gpus()) return Conflict.GANG_SIZE;
        if (s.runsAlone(guest) != null || s.runsAlone(host) != null) return Conflict.RUNS_ALONE;
        if (guestChargedMiB + hostChargedMiB > capacityMiB) return Conflict.MEMORY;
        if (s.crashedTogether(guest, host)) return Conflict.CRASHED_TOGETHER;
        return null;
    }

    /** The conflict with a host alone on {@code hostGpus} in words, or empty where there is none. */
    public static Optional<String> refusal(SchedulerSnapshot s, Job guest, Job host, List<Integer> hostGpus) {
        return refusal(s, guest, host, capacity(s, hostGpus));
    }

    /** As above, on GPUs of {@code capacityMiB} each. */
    public static Optional<String> refusal(SchedulerSnapshot s, Job guest, Job host, long capacityMiB) {
        Conflict c = conflict(s, guest, host, s.memoryRule().charged(s.memoryNeed(host)), capacityMiB);
        if (c == null) return Optional.empty();
        return Optional.of(switch (c) {
            case GANG_SIZE -> "a gang shares only with a gang of its size (" + guest.gpus() + " GPU(s) against " + host.gpus() + ")";
            case CRASHED_TOGETHER -> "they ran out of memory together before";
            case RUNS_ALONE -> s.runsAlone(guest) != null ? s.runsAlone(guest) : PlacementRules.mustRunAlone(host.id(), s.runsAlone(host));
            case MEMORY -> String.format(Locale.ROOT, "memory does not fit (%.1f of %.1f GB)",
                    s.memoryRule().total(s.memoryNeed(guest), s.memoryNeed(host)) / 1024.0, capacityMiB / 1024.0);
        });
    }

    /** The memory of the smallest of {@code gpus}: what a job on all of them may use. */
    private static long capacity(SchedulerSnapshot s, List<Integer> gpus) {
        long capacity = Long.MAX_VALUE;
        for (int g : gpus) capacity = Math.min(capacity, s.cluster().gpu(g).type().memoryMiB());
        return capacity;
    }
}
