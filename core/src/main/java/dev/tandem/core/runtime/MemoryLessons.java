package dev.tandem.core.runtime;

import dev.tandem.core.model.WorkloadSignature;

import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a world has learned about device memory, which its policies read at every decision
 * ({@link dev.tandem.core.policy.SchedulerSnapshot#memoryNeed}, {@link dev.tandem.core.policy.SchedulerSnapshot#crashedTogether}):
 * the workloads whose memory budget was raised past what their jobs ask for, and the pairs of workloads that must
 * not share a GPU again. Both grow by the {@link OutOfMemoryRule} when a job crashes next to a partner; live, a
 * budget also grows to the peak a run was measured at. The simulator keeps one per run, the daemon one restored
 * from its store and written through to it.
 */
public final class MemoryLessons {
    /** What one crash taught: the crashed workload's budget by the rule, and whether that raised what was known. */
    public record Crash(long budgetMiB, boolean raised) {}

    private final Map<WorkloadSignature, Long> budgets = new LinkedHashMap<>();
    private final Set<String> pairs = new HashSet<>();

    public MemoryLessons() {}

    /** Lessons kept from before (a daemon's store): budgets by workload and pair keys ({@link OutOfMemoryRule#pairKey}). */
    public MemoryLessons(Map<WorkloadSignature, Long> budgets, Collection<String> pairKeys) {
        this.budgets.putAll(budgets);
        this.pairs.addAll(pairKeys);
    }

    /**
     * A job of {@code crashed}, asking {@code ownMiB}, ran out of memory on a GPU of {@code capacityMiB} next to a job
     * of {@code partner} budgeted {@code partnerMiB}: the two workloads never share again (the pair in both orders), and
     * the crashed one is budgeted at least what the partner left free ({@link OutOfMemoryRule#raisedEstimateMiB}).
     */
    public Crash crashed(WorkloadSignature crashed, long ownMiB, WorkloadSignature partner, long partnerMiB, long capacityMiB) {
        pairs.add(OutOfMemoryRule.pairKey(crashed, partner));
        pairs.add(OutOfMemoryRule.pairKey(partner, crashed));
        long budget = OutOfMemoryRule.raisedEstimateMiB(ownMiB, partnerMiB, capacityMiB);
        return new Crash(budget, raise(crashed, budget));
    }

    /** Budgets a workload at least {@code mib} from now on; whether that is more than before. */
    public boolean raise(WorkloadSignature workload, long mib) {
        if (budgets.getOrDefault(workload, 0L) >= mib) return false;
        budgets.put(workload, mib);
        return true;
    }

    /** The raised budgets, by workload (a view). */
    public Map<WorkloadSignature, Long> budgets() { return Collections.unmodifiableMap(budgets); }

    /** The pairs of workloads that must not share a GPU, as {@link OutOfMemoryRule#pairKey}s in both orders (a view). */
    public Set<String> pairs() { return Collections.unmodifiableSet(pairs); }
}
