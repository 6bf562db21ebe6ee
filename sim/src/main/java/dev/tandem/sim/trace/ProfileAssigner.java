package dev.tandem.sim.trace;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.Csv;
import dev.tandem.data.DataSource;
import dev.tandem.data.GavelThroughputReader;
import dev.tandem.sim.engine.JobRandom;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Gives each trace record a workload profile. Traces name no models (or models of their own), so the rule, in
 * this order, is:
 * <ol>
 * <li>{@link Rule#MAPPING}: the user's mapping file ({@link #withMapping}), CSV
 *     {@code pattern,model,dataset,batchsize,amp}. {@code pattern} is a Java regular expression that must match
 *     the <em>whole</em> job type (use {@code .*} for parts); for records without a job type it is tried on the
 *     user, then on the vc. The first matching row whose profile supports the record's gang size wins.</li>
 * <li>{@link Rule#NAME}: the job type names a profile: its signature label ({@code ResNet18/CIFAR-10/bs64}), or
 *     Gavel's naming {@code "MODEL (batch size N)"} / {@code "MODEL"}. Model names are compared ignoring case
 *     and punctuation ("ResNet-18" = "resnet18"); without a batch size any batch size matches.</li>
 * <li>{@link Rule#SEEDED}: Gavel's approach, uniformly at random among the profiles that support the gang
 *     size.</li>
 * </ol>
 * Where several profiles qualify (several name matches, or the seeded rule), the pick is a function of the seed
 * and the record's id only ({@link dev.tandem.sim.engine.JobRandom}), so it is reproducible and
 * dropping, skipping or reordering other records never changes a record's profile. The dataset column of a
 * mapping row may be empty (Gavel-style profiles without a data set). Not thread-safe (it caches per job type).
 */
public final class ProfileAssigner {
    /** Which rule chose a profile. */
    public enum Rule { MAPPING, NAME, SEEDED }

    public record Assignment(JobProfile profile, Rule rule) {}

    private record MappingRow(Pattern pattern, JobProfile profile) {}

    private static final Pattern GAVEL_NAME = Pattern.compile("(.+?) \\(batch size (\\d+)\\)");

    /** How much faster a gang of n GPUs runs a profile than one GPU does. */
    @FunctionalInterface
    public interface GangSpeedup {
        /** No per-scale throughputs: a gang progresses at its profile's speed (its trace duration is its run time). */
        GangSpeedup NONE = (p, gpus) -> 1.0;

        double of(JobProfile p, int gpus);
    }

    private final List<JobProfile> profiles;
    private final BiPredicate<JobProfile, Integer> supportsSize;
    private final GangSpeedup gangSpeedup;
    private final long seed;
    private final List<MappingRow> mapping;
    private final Map<Integer, List<JobProfile>> bySize = new HashMap<>();
    private final Map<String, List<JobProfile>> byName = new HashMap<>();

    private ProfileAssigner(List<JobProfile> profiles, BiPredicate<JobProfile, Integer> supportsSize, GangSpeedup gangSpeedup,
                            long seed, List<MappingRow> mapping) {
        if (profiles.isEmpty()) throw new IllegalArgumentException("no profiles to assign");
        this.profiles = List.copyOf(profiles);
        this.supportsSize = supportsSize;
        this.gangSpeedup = gangSpeedup;
        this.seed = seed;
        this.mapping = List.copyOf(mapping);
    }

    /** Every profile may run at every gang size (e.g. Lucid's profiles). */
    public static ProfileAssigner seeded(List<JobProfile> profiles, long seed) {
        return seeded(profiles, (p, size) -> true, seed);
    }

    /** @param supportsSize whether a profile may be used for a gang of the given size */
    public static ProfileAssigner seeded(List<JobProfile> profiles, BiPredicate<JobProfile, Integer> supportsSize, long seed) {
        return new ProfileAssigner(profiles, supportsSize, GangSpeedup.NONE, seed, List.of());
    }

    /**
     * Gavel's job types, each at the scale factors Gavel measured, with Gavel's throughput at each scale: a
     * trace's steps on a gang of n GPUs take steps / throughput(n) seconds, not steps / throughput(1).
     */
    public static ProfileAssigner forGavel(GavelThroughputReader.GavelData gavel, long seed) {
        return forGavel(gavel, gavel.profiles(), seed);
    }

    /** As {@link #forGavel(GavelThroughputReader.GavelData, long)}, assigning only {@code profiles} (a subset of Gavel's). */
    public static ProfileAssigner forGavel(GavelThroughputReader.GavelData gavel, List<JobProfile> profiles, long seed) {
        Map<WorkloadSignature, List<Integer>> scales = gavel.scales();
        return new ProfileAssigner(profiles, (p, size) -> scales.getOrDefault(p.signature(), List.of()).contains(size),
                (p, gpus) -> gavel.gangSpeedup(p.signature(), gpus), seed, List.of());
    }

    /** How much faster a gang of {@code gpus} runs {@code p} than one GPU does (1 when the data has no per-scale throughputs). */
    public double gangSpeedup(JobProfile p, int gpus) {
        double s = gangSpeedup.of(p, gpus);
        return Double.isNaN(s) || !(s > 0) ? 1.0 : s;
    }

    /** This assigner with the user's mapping file consulted first; its rows must name profiles of this set. */
    public ProfileAssigner withMapping(DataSource mappingCsv) {
        Map<WorkloadSignature, JobProfile> known = new HashMap<>();
        for (JobProfile p : profiles) known.put(p.signature(), p);
        List<MappingRow> rows = new ArrayList<>(mapping);
        Csv.read(mappingCsv, List.of("pattern", "model", "dataset", "batchsize", "amp"), row -> {
            Pattern pattern;
            try {
                pattern = Pattern.compile(row.text("pattern"));
            } catch (PatternSyntaxException e) {
                throw row.error("pattern", "not a regular expression: " + e.getDescription());
            }
            int batch = row.nonNegativeInteger("batchsize");
            String dataset = row.has("dataset") ? row.text("dataset") : "";
            WorkloadSignature sig = new WorkloadSignature(row.text("model"), dataset, batch, row.flag("amp"));
            JobProfile p = known.get(sig);
            if (p == null) throw row.error("model", "no profile " + sig.label() + " in the profile set");
            rows.add(new MappingRow(pattern, p));
        });
        return new ProfileAssigner(profiles, supportsSize, gangSpeedup, seed, rows);
    }

    public Optional<JobProfile> assign(TraceRecord r) { return assignment(r).map(Assignment::profile); }

    /** The profile for {@code r} and the rule that chose it; empty when no profile supports its gang size. */
    public Optional<Assignment> assignment(TraceRecord r) {
        for (MappingRow m : mapping) {
            if (matches(m.pattern(), r) && supportsSize.test(m.profile(), r.gpus())) return Optional.of(new Assignment(m.profile(), Rule.MAPPING));
        }
        if (!r.jobType().isEmpty()) {
            List<JobProfile> named = byName.computeIfAbsent(r.jobType(), this::named).stream().filter(p -> supportsSize.test(p, r.gpus())).toList();
            if (!named.isEmpty()) return Optional.of(new Assignment(pick(named, r.id()), Rule.NAME));
        }
        List<JobProfile> fit = bySize.computeIfAbsent(r.gpus(), size -> profiles.stream().filter(p -> supportsSize.test(p, size)).toList());
        return fit.isEmpty() ? Optional.empty() : Optional.of(new Assignment(pick(fit, r.id()), Rule.SEEDED));
    }

    private static boolean matches(Pattern p, TraceRecord r) {
        if (!r.jobType().isEmpty()) return p.matcher(r.jobType()).matches();
        return p.matcher(r.user()).matches() || p.matcher(r.vc()).matches();
    }

    /** The profiles a job type names, in profile order. */
    private List<JobProfile> named(String jobType) {
        for (JobProfile p : profiles) if (p.signature().label().equals(jobType)) return List.of(p);
        String model = jobType;
        int batch = -1;
        Matcher m = GAVEL_NAME.matcher(jobType);
        if (m.matches()) {
            model = m.group(1);
            batch = Integer.parseInt(m.group(2));
        }
        String key = normalise(model);
        List<JobProfile> out = new ArrayList<>();
        for (JobProfile p : profiles) {
            if (normalise(p.signature().model()).equals(key) && (batch < 0 || p.signature().batchSize() == batch)) out.add(p);
        }
        return out;
    }

    private static String normalise(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    }

    private JobProfile pick(List<JobProfile> candidates, String id) {
        if (candidates.size() == 1) return candidates.get(0);
        return candidates.get(JobRandom.of(seed, id).nextInt(candidates.size()));
    }
}
