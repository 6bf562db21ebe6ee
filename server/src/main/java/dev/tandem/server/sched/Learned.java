package dev.tandem.server.sched;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.runtime.MemoryLessons;
import dev.tandem.server.store.ProfileRecord;
import dev.tandem.server.store.Store;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The store's profiles and out-of-memory lessons, cached for the loop (the policy reads them every round) and
 * written through to the store; with the known profiles ({@link KnownProfiles}) beneath the measured ones.
 */
final class Learned {
    private final Store store;
    /** What the policy sees: known profiles, replaced by those measured here. */
    private final ProfileStore profiles = new ProfileStore();
    /** Profiles measured here (their records say whether the solo speed was measured). */
    private final Map<WorkloadSignature, ProfileRecord> records = new HashMap<>();
    /** Raised memory budgets and pairs never to form again, as the store keeps them. */
    private final MemoryLessons memory;
    /** Solo speeds this hardware is known to have ({@link dev.tandem.server.exec.Executor#hardwareProfiles}). */
    private final Map<WorkloadSignature, Double> hardwareSpeeds = new HashMap<>();
    /** How far the lengths users declare ({@code --iterations}) proved right (judged again from the store at start-up). */
    private final dev.tandem.core.runtime.LengthEstimates lengths = new dev.tandem.core.runtime.LengthEstimates();
    /** The highest job id {@link #arrivals} has seen. */
    private long newestSeen;
    /** Counts what was learned: a job's view built at an older version may be out of date. */
    private long version;

    Learned(Store store, java.util.List<JobProfile> known, java.util.List<JobProfile> hardware) {
        this.store = store;
        for (JobProfile p : hardware) hardwareSpeeds.put(p.signature(), p.soloSpeed());
        // where the executor knows its GPUs' solo speed for a known workload, that speed is the one the policy plans
        // with: the known profiles may come from other hardware. All speeds here are per cluster second (PolicyTime).
        for (JobProfile p : known) {
            Double speed = hardwareSpeeds.get(p.signature());
            profiles.put(speed == null ? p : p.withSoloSpeed(speed));
        }
        for (ProfileRecord r : store.profiles()) {
            profiles.put(r.profile());
            records.put(r.profile().signature(), r);
        }
        this.memory = new MemoryLessons(store.memoryEstimates(), store.oomPairs());
        relearnLengths(store);
    }

    /**
     * Judges declared lengths again from the store's most recent jobs that declared them, oldest first, as they were
     * learned while the daemon ran: each one's declaration, and for those that succeeded the iterations they reported
     * last. The unfinished ones among them are then seen ({@link #arrivals} skips them).
     */
    private void relearnLengths(Store store) {
        java.util.List<dev.tandem.server.store.JobRecord> recent = store.recentJobsWithIterations(dev.tandem.core.runtime.LengthEstimates.DECLARED_WINDOW);
        for (int i = recent.size() - 1; i >= 0; i--) {
            dev.tandem.server.store.JobRecord r = recent.get(i);
            declared(r);
            if (r.state() == dev.tandem.server.store.JobState.SUCCEEDED && r.progressIter() != null && r.progressIter() > 0) {
                lengths.finished(r.iterations(), r.progressIter());
            }
        }
        if (!recent.isEmpty()) newestSeen = recent.getFirst().id();
    }

    ProfileStore profiles() { return profiles; }

    dev.tandem.core.runtime.LengthEstimates lengths() { return lengths; }

    /**
     * Tells {@link #lengths} the lengths declared by jobs it has not seen yet, in solo seconds where the workload's speed
     * is known: those with a higher id than any before (ids grow with submission; a job submitted and finished between
     * two rounds, or of a workload not yet profiled, is missed, which only thins the sample). {@code unfinished} is in
     * id order, as the store hands it, so a round looks only at its tail of new jobs, not at every waiting job.
     */
    void arrivals(java.util.List<dev.tandem.server.store.JobRecord> unfinished) {
        int from = unfinished.size();
        while (from > 0 && unfinished.get(from - 1).id() > newestSeen) from--;
        if (from == unfinished.size()) return;
        for (int i = from; i < unfinished.size(); i++) {
            dev.tandem.server.store.JobRecord r = unfinished.get(i);
            if (r.iterations() != null) declared(r);
        }
        newestSeen = unfinished.getLast().id();
    }

    /** A job's declared length, in solo seconds where its workload's speed is known (else it is not counted). */
    private void declared(dev.tandem.server.store.JobRecord r) {
        profile(r.signature()).ifPresent(p -> lengths.arrived(r.iterations() / p.soloSpeed()));
    }

    long version() { return version; }

    Optional<JobProfile> profile(WorkloadSignature sig) { return profiles.find(sig); }

    /** The profile measured here, if any (a known profile has none). */
    Optional<ProfileRecord> record(WorkloadSignature sig) { return Optional.ofNullable(records.get(sig)); }

    /** Whether this workload's solo speed was measured here (else co-located speeds cannot be judged yet). */
    boolean soloSpeedMeasured(WorkloadSignature sig) { return measuredSoloSpeed(sig).isPresent(); }

    /** The solo speed measured here, or known of this hardware; empty when co-located speeds cannot be judged yet. */
    Optional<Double> measuredSoloSpeed(WorkloadSignature sig) {
        ProfileRecord r = records.get(sig);
        if (r != null && r.speedMeasured()) return Optional.of(r.profile().soloSpeed());
        return Optional.ofNullable(hardwareSpeeds.get(sig));
    }

    void saveProfile(ProfileRecord r) {
        store.saveProfile(r);
        profiles.put(r.profile());
        records.put(r.profile().signature(), r);
        version++;
    }

    Map<WorkloadSignature, Long> memoryEstimates() { return memory.budgets(); }

    Set<String> oomPairs() { return memory.pairs(); }

    /** Budgets a workload at least {@code mib} (a measured peak), written through when that is more than before. */
    void raiseMemoryEstimate(WorkloadSignature sig, long mib, long now) {
        if (!memory.raise(sig, mib)) return;
        store.raiseMemoryEstimate(sig, mib, now);
        version++;
    }

    /**
     * A run of {@code crashed} ran out of memory next to one of {@code partner} ({@link MemoryLessons#crashed}): the pair
     * and a raised budget are written through. Returns the crashed workload's budget by the rule.
     */
    long crashed(WorkloadSignature crashed, long ownMiB, WorkloadSignature partner, long partnerMiB, long capacityMiB, long now) {
        MemoryLessons.Crash lesson = memory.crashed(crashed, ownMiB, partner, partnerMiB, capacityMiB);
        store.addOomPair(crashed, partner, now);
        if (lesson.raised()) store.raiseMemoryEstimate(crashed, lesson.budgetMiB(), now);
        version++;
        return lesson.budgetMiB();
    }
}
