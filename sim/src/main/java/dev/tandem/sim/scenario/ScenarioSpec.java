package dev.tandem.sim.scenario;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.trace.TraceSpec;
import dev.tandem.sim.workload.WorkloadSpec;

/**
 * What to simulate. {@code profiles}, {@code truth} and {@code train} name data sources (files or
 * {@code bundled:...}). A JSON truth is Gavel's throughput file: jobs are then drawn from its job types on
 * {@code gavelGpu}; a CSV truth is Lucid's pair format and jobs are drawn from {@code profiles}.
 *
 * @param gavelGpu the GPU type whose throughputs a Gavel file is read for; null: the cluster's where its name is one
 *                 of Gavel's ({@link #gavelGpuFor})
 *
 * @param model  the policies' compatibility oracle: {@code auto} (knn for profile data, measured for Gavel),
 *               {@code knn}, {@code util-sum} or {@code measured}
 * @param online whether the oracle learns from pairs it observes running
 * @param trainWithout models whose pairs the oracle may not learn from (the truth keeps them), so it must predict
 *                     them from their solo profiles alone
 */
public record ScenarioSpec(String profiles, String truth, String train, String gavelGpu, String model, boolean online,
                           Cluster cluster, WorkloadSpec workload, SimConfig sim,
                           TandemPolicy.Config tandem, TraceSpec trace, java.util.Set<String> trainWithout) {
    public ScenarioSpec {
        trainWithout = java.util.Set.copyOf(trainWithout);
        gavelGpu = gavelGpuFor(gavelGpu, cluster, isGavel(truth) || isGavel(train));
    }

    /** The GPU types of Gavel's throughput file (its top-level keys). */
    static final java.util.List<String> GAVEL_GPUS = java.util.List.of("k80", "p100", "v100");

    /**
     * The GPU type a Gavel file is read for: the one asked for, else the cluster's where its GPU type names one of
     * Gavel's ({@code 4x8:K80-12GB} is k80), else v100. Where the cluster's GPUs are another of Gavel's types than the one
     * asked for, or of several, a Gavel file is refused: its jobs would run at another GPU's speeds (until 2026-12-06
     * a K80 cluster ran at V100 speeds unless --gavel-gpu said k80).
     */
    static String gavelGpuFor(String asked, Cluster cluster, boolean gavelData) {
        java.util.Set<String> named = new java.util.TreeSet<>();
        for (dev.tandem.core.model.Gpu g : cluster.gpus()) {
            String type = g.type().name().toLowerCase(java.util.Locale.ROOT);
            for (String gavel : GAVEL_GPUS) if (type.startsWith(gavel)) named.add(gavel);
        }
        if (gavelData && named.size() > 1) {
            throw new IllegalArgumentException("the cluster has GPUs of Gavel's types " + named + ", but a Gavel file gives the speeds of one GPU type"
                    + " for all of them (--gavel-gpu); simulate one type at a time");
        }
        if (asked == null) return named.size() == 1 ? named.iterator().next() : "v100";
        if (gavelData && named.size() == 1 && !named.contains(asked.toLowerCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException("the cluster's GPUs are " + named.iterator().next() + ", but --gavel-gpu " + asked
                    + " would run its jobs at " + asked + " speeds; drop --gavel-gpu or make them agree");
        }
        return asked;
    }

    private static boolean isGavel(String source) {
        return source != null && dev.tandem.data.DataSource.of(source).isJson();
    }

    /** The same spec with every training pair allowed. */
    public ScenarioSpec(String profiles, String truth, String train, String gavelGpu, String model, boolean online,
                        Cluster cluster, WorkloadSpec workload, SimConfig sim, TandemPolicy.Config tandem, TraceSpec trace) {
        this(profiles, truth, train, gavelGpu, model, online, cluster, workload, sim, tandem, trace, java.util.Set.of());
    }

    /** The same spec without a trace (a generated workload). */
    public ScenarioSpec(String profiles, String truth, String train, String gavelGpu, String model, boolean online,
                        Cluster cluster, WorkloadSpec workload, SimConfig sim, TandemPolicy.Config tandem) {
        this(profiles, truth, train, gavelGpu, model, online, cluster, workload, sim, tandem, null);
    }
}
