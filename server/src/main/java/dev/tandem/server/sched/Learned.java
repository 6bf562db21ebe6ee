package dev.tandem.server.sched;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.runtime.OutOfMemoryRule;
import dev.tandem.server.store.ProfileRecord;
import dev.tandem.server.store.Store;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
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
    private final Map<WorkloadSignature, Long> memoryEstimates;
    private final Set<String> oomPairs;
    /** Solo speeds this hardware is known to have ({@link dev.tandem.server.exec.Executor#hardwareProfiles}). */
    private final Map<WorkloadSignature, Double> hardwareSpeeds = new HashMap<>();
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
        this.memoryEstimates = new HashMap<>(store.memoryEstimates());
        this.oomPairs = new HashSet<>(store.oomPairs());
    }

    ProfileStore profiles() { return profiles; }

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

    Map<WorkloadSignature, Long> memoryEstimates() { return Collections.unmodifiableMap(memoryEstimates); }

    Set<String> oomPairs() { return Collections.unmodifiableSet(oomPairs); }

    void raiseMemoryEstimate(WorkloadSignature sig, long mib, long now) {
        if (memoryEstimates.getOrDefault(sig, 0L) >= mib) return;
        store.raiseMemoryEstimate(sig, mib, now);
        memoryEstimates.put(sig, mib);
        version++;
    }

    void addOomPair(WorkloadSignature a, WorkloadSignature b, long now) {
        store.addOomPair(a, b, now);
        oomPairs.add(OutOfMemoryRule.pairKey(a, b));
        oomPairs.add(OutOfMemoryRule.pairKey(b, a));
        version++;
    }
}
