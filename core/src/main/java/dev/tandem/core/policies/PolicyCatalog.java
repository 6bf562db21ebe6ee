package dev.tandem.core.policies;

import dev.tandem.core.policy.Policy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Policies by the names the CLI and the API use. Each call returns a fresh instance (some policies keep state). */
public final class PolicyCatalog {
    private static final Map<String, Supplier<Policy>> BUILTIN = new LinkedHashMap<>();

    static {
        BUILTIN.put("fifo", FifoPolicy::new);
        BUILTIN.put("sjf", SjfPolicy::new);
        BUILTIN.put("srtf", SrtfPolicy::new);
        BUILTIN.put("tiresias", TiresiasPolicy::new);
        BUILTIN.put("fifo-packed", FifoPackedPolicy::new);
        BUILTIN.put("gavel-packed", GavelPackedPolicy::new);
        BUILTIN.put("lucid", LucidPolicy::new);
        BUILTIN.put("gandiva", GandivaPolicy::new);
        BUILTIN.put("tandem", TandemPolicy::new);
    }

    private static final String TANDEM_VARIANT = "tandem:";
    /** {@code gavel-packed:ROUND}: Gavel's rule with rounds of that length (0: at every scheduling point). */
    private static final String GAVEL_VARIANT = "gavel-packed:";

    private PolicyCatalog() {}

    public static List<String> names() { return List.copyOf(BUILTIN.keySet()); }

    public static Policy create(String name) {
        return create(name, TandemPolicy.Config.defaults());
    }

    /**
     * As {@link #create(String)}, with tandem's tunables for the {@code tandem} policy. {@code tandem:OBJECTIVE}
     * (e.g. {@code tandem:jct}) is tandem with that {@link Objective} instead of the configured one, so one run can
     * compare objectives; its results carry that name. {@code gavel-packed:ROUND} (e.g. {@code gavel-packed:120s},
     * {@code gavel-packed:0}) is gavel-packed with rounds of that length instead of Gavel's 360 s; 0 re-packs at every
     * scheduling point, as gavel-packed did before it had rounds.
     */
    public static Policy create(String name, TandemPolicy.Config tandem) {
        if (name.equals("gavel-packed") || name.startsWith(GAVEL_VARIANT)) {
            return new GavelPackedPolicy(GavelPackedPolicy.GAVEL_THRESHOLD, gavelRoundSeconds(name), name);
        }
        if (name.equals("tandem")) return new TandemPolicy(tandem);
        if (name.startsWith(TANDEM_VARIANT)) {
            return new TandemPolicy(tandem.withObjective(Objective.parse(name.substring(TANDEM_VARIANT.length()))), name);
        }
        Supplier<Policy> s = BUILTIN.get(name);
        if (s == null) throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", names()));
        return s.get();
    }

    /** The round length {@code gavel-packed[:ROUND]} asks for, in the cluster's seconds (Gavel's 360 s without one). */
    private static double gavelRoundSeconds(String name) {
        if (!name.startsWith(GAVEL_VARIANT)) return GavelPackedPolicy.GAVEL_ROUND_SECONDS;
        try {
            return dev.tandem.core.model.DurationText.seconds(name.substring(GAVEL_VARIANT.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("policy '" + name + "': the round length " + e.getMessage() + "; 0 re-packs at every scheduling point");
        }
    }
}
