package dev.tandem.sim.scenario;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.data.DataSource;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.workload.WorkloadSpec;

/** Scenarios on the bundled data for tests. */
public final class ScenarioFixtures {
    private ScenarioFixtures() {}

    public static Scenario lucid(int jobs, String arrival, long seed) {
        return Scenario.load(new ScenarioSpec(DataSource.LUCID_PROFILES.name(), DataSource.LUCID_PAIRS.name(), DataSource.LUCID_PAIRS.name(),
                "v100", "auto", true, Cluster.parse("1x8:RTX3090-24GB"), WorkloadSpec.of(jobs, arrival, "1", 1800, 57600, seed),
                SimConfig.defaults(), TandemPolicy.Config.defaults()));
    }

    public static Scenario gavel(int jobs, String sizes, String cluster, long seed) {
        return Scenario.load(new ScenarioSpec(DataSource.LUCID_PROFILES.name(), DataSource.GAVEL_THROUGHPUTS.name(), DataSource.GAVEL_THROUGHPUTS.name(),
                "v100", "auto", true, Cluster.parse(cluster), WorkloadSpec.of(jobs, "batch", sizes, 1800, 57600, seed),
                SimConfig.defaults(), TandemPolicy.Config.defaults()));
    }
}
