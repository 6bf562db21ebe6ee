package dev.tandem.core.runtime;

import dev.tandem.core.model.WorkloadSignature;

/**
 * What an out-of-memory crash next to a partner teaches, in every world: the two workloads are never paired again
 * (their pair key is remembered in both orders), the crashed workload is budgeted at least the memory its partner
 * left free plus one MiB from then on (at most a whole GPU, never less than it asked for), and the job that crashed
 * runs alone until it ends ({@link dev.tandem.core.policy.SchedulerSnapshot#runsAlone}; live, its peak is then
 * measured alone).
 */
public final class OutOfMemoryRule {
    /** Why a job that crashed next to a partner must run alone. */
    public static final String RUNS_ALONE = "it runs alone after an out-of-memory crash next to a partner";

    private OutOfMemoryRule() {}

    /** The key under which a pair that crashed is remembered: {@code "a|b"} of the signatures' labels. */
    public static String pairKey(WorkloadSignature a, WorkloadSignature b) {
        return pairKey(a.label(), b.label());
    }

    /** As {@link #pairKey(WorkloadSignature, WorkloadSignature)}, from the labels (as a store keeps them). */
    public static String pairKey(String labelA, String labelB) {
        return labelA + "|" + labelB;
    }

    /**
     * The raised memory budget of a workload that ran out of memory on a GPU of {@code capacityMiB} next to a
     * partner budgeted {@code partnerMiB}, having asked for {@code ownMiB}.
     */
    public static long raisedEstimateMiB(long ownMiB, long partnerMiB, long capacityMiB) {
        return Math.max(ownMiB, Math.min(capacityMiB, capacityMiB - partnerMiB + 1));
    }
}
