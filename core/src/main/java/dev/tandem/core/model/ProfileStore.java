package dev.tandem.core.model;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Solo profiles keyed by workload signature; the policy's and the simulator's source of per-job metrics. */
public final class ProfileStore {
    private final Map<WorkloadSignature, JobProfile> bySignature = new LinkedHashMap<>();

    public ProfileStore() {}

    public ProfileStore(Collection<JobProfile> profiles) {
        profiles.forEach(this::put);
    }

    public void put(JobProfile p) { bySignature.put(p.signature(), p); }

    public Optional<JobProfile> find(WorkloadSignature sig) { return Optional.ofNullable(bySignature.get(sig)); }

    /** The profile of a signature, or null: for the hot paths of policies, which ask per queued job and round. */
    public JobProfile orNull(WorkloadSignature sig) { return bySignature.get(sig); }

    public JobProfile get(WorkloadSignature sig) {
        JobProfile p = bySignature.get(sig);
        if (p == null) throw new IllegalArgumentException("no profile for workload " + sig.label());
        return p;
    }

    public Collection<JobProfile> all() { return bySignature.values(); }

    public int size() { return bySignature.size(); }
}
