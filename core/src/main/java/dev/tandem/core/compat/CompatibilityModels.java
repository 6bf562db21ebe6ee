package dev.tandem.core.compat;

import java.util.List;

/**
 * The compatibility oracles by name, as {@code --model} takes them in every world (simulate, sweep, serve): knn
 * (kernel regression on solo utilisations), util-sum, measured (the measured pairs, knn for the rest where
 * utilisation is known) and auto.
 */
public final class CompatibilityModels {
    public static final List<String> NAMES = List.of("auto", "knn", "util-sum", "measured");

    private CompatibilityModels() {}

    /** Fails with the known names unless {@code name} is one of them. */
    public static String check(String name) {
        if (!NAMES.contains(name)) throw new IllegalArgumentException("unknown model '" + name + "'; known: " + String.join(", ", NAMES));
        return name;
    }

    /**
     * Fits the named oracle on measured pairs (infeasible ones included: measured keeps them, the others learn from
     * the feasible). auto is knn where the profiles carry utilisation, else measured; {@code measuredByDefault}
     * makes auto measured anyway (Gavel's throughputs, whose pairs are the ground truth's own).
     */
    public static CompatibilityModel fit(String name, List<PairObservation> training, boolean measuredByDefault) {
        List<PairObservation> feasible = training.stream().filter(o -> o.combined() > 0).toList();
        boolean hasUtil = feasible.stream().anyMatch(o -> o.a().hasUtilization());
        String chosen = check(name).equals("auto") ? (measuredByDefault || !hasUtil ? "measured" : "knn") : name;
        return switch (chosen) {
            case "knn" -> KernelRegressionModel.fit(feasible);
            case "util-sum" -> UtilSumModel.fit(feasible);
            default -> new MeasuredPairModel(training, hasUtil ? KernelRegressionModel.fit(feasible) : null);
        };
    }
}
