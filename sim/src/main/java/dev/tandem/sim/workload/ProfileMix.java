package dev.tandem.sim.workload;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.MeasuredPair;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which profiles jobs are drawn from. {@link #MEASURED} keeps the workloads that appear in at least one measured
 * pair of the ground truth, so that co-located speeds come from measurements, not from the fallback contention
 * model (Lucid's data withholds BERT, ResNet50 and Transformer from its pairs; its other 43 profiles have all 946
 * of their pairs measured). {@link #ALL} draws from every profile.
 */
public enum ProfileMix {
    MEASURED, ALL;

    public static ProfileMix parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "measured" -> MEASURED;
            case "all" -> ALL;
            default -> throw new IllegalArgumentException("--mix must be measured or all, got '" + s + "'");
        };
    }

    /** The profiles this mix draws from; never empty. */
    public List<JobProfile> select(List<JobProfile> profiles, List<MeasuredPair> truthPairs) {
        if (this == ALL) return profiles;
        Set<WorkloadSignature> paired = new HashSet<>();
        for (MeasuredPair p : truthPairs) {
            paired.add(p.a());
            paired.add(p.b());
        }
        List<JobProfile> kept = profiles.stream().filter(p -> paired.contains(p.signature())).toList();
        if (kept.isEmpty()) throw new IllegalArgumentException("no profile has a measured pair in the truth; use --mix all");
        return kept;
    }

    @Override public String toString() { return name().toLowerCase(Locale.ROOT); }
}
