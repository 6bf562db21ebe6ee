package dev.tandem.server.sched;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
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
 * written through to the store.
 */
final class Learned {
    private final Store store;
    private final ProfileStore profiles = new ProfileStore();
    private final Map<WorkloadSignature, ProfileRecord> records = new HashMap<>();
    private final Map<WorkloadSignature, Long> memoryEstimates;
    private final Set<String> oomPairs;

    Learned(Store store) {
        this.store = store;
        for (ProfileRecord r : store.profiles()) {
            profiles.put(r.profile());
            records.put(r.profile().signature(), r);
        }
        this.memoryEstimates = new HashMap<>(store.memoryEstimates());
        this.oomPairs = new HashSet<>(store.oomPairs());
    }

    ProfileStore profiles() { return profiles; }

    Optional<JobProfile> profile(WorkloadSignature sig) { return profiles.find(sig); }

    Optional<ProfileRecord> record(WorkloadSignature sig) { return Optional.ofNullable(records.get(sig)); }

    void saveProfile(ProfileRecord r) {
        store.saveProfile(r);
        profiles.put(r.profile());
        records.put(r.profile().signature(), r);
    }

    Map<WorkloadSignature, Long> memoryEstimates() { return Collections.unmodifiableMap(memoryEstimates); }

    Set<String> oomPairs() { return Collections.unmodifiableSet(oomPairs); }

    void raiseMemoryEstimate(WorkloadSignature sig, long mib, long now) {
        if (memoryEstimates.getOrDefault(sig, 0L) >= mib) return;
        store.raiseMemoryEstimate(sig, mib, now);
        memoryEstimates.put(sig, mib);
    }

    void addOomPair(WorkloadSignature a, WorkloadSignature b, long now) {
        store.addOomPair(a, b, now);
        oomPairs.add(a.label() + "|" + b.label());
        oomPairs.add(b.label() + "|" + a.label());
    }
}
