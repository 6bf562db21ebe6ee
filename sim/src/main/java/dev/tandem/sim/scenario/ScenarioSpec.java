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
