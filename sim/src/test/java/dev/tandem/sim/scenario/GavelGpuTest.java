package dev.tandem.sim.scenario;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.data.DataSource;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.workload.WorkloadSpec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which GPU type's throughputs a Gavel file is read for: the one asked for, else the cluster's, else v100. */
class GavelGpuTest {
    private static final String GAVEL = DataSource.GAVEL_THROUGHPUTS.name();

    private static ScenarioSpec spec(String truth, String gavelGpu, String cluster) {
        return new ScenarioSpec(DataSource.LUCID_PROFILES.name(), truth, truth, gavelGpu, "auto", true, Cluster.parse(cluster),
                WorkloadSpec.of(8, "batch", "1", 1800, 3600, 1), SimConfig.defaults(), TandemPolicy.Config.defaults());
    }

    @Test
    void theClustersGpuTypeChoosesWhenNoneIsAskedFor() {
        assertThat(spec(GAVEL, null, "1x4:K80-12GB").gavelGpu()).isEqualTo("k80");
        assertThat(spec(GAVEL, null, "1x4:p100-16GB").gavelGpu()).isEqualTo("p100");
        assertThat(spec(GAVEL, null, "1x4:V100-32GB").gavelGpu()).isEqualTo("v100");
        assertThat(spec(GAVEL, null, "1x4:RTX3090-24GB").gavelGpu()).as("not one of Gavel's: its default").isEqualTo("v100");
        assertThat(spec(GAVEL, "p100", "1x4:RTX3090-24GB").gavelGpu()).isEqualTo("p100");
        // the throughputs read are the cluster's: K80s run Gavel's jobs slower than V100s
        Scenario k80 = Scenario.load(spec(GAVEL, null, "1x4:K80-12GB"));
        Scenario v100 = Scenario.load(spec(GAVEL, null, "1x4:V100-32GB"));
        assertThat(k80.truth().name()).isEqualTo("gavel:k80");
        assertThat(k80.profiles().all().iterator().next().soloSpeed()).isLessThan(v100.profiles().all().iterator().next().soloSpeed());
    }

    @Test
    void aGpuTypeThatContradictsTheClusterIsRefusedWhereAGavelFileIsRead() {
        assertThatThrownBy(() -> spec(GAVEL, "v100", "1x4:K80-12GB"))
                .hasMessage("the cluster's GPUs are k80, but --gavel-gpu v100 would run its jobs at v100 speeds; drop --gavel-gpu or make them agree");
        assertThatThrownBy(() -> spec(GAVEL, null, "1x4:K80-12GB+1x4:V100-32GB")).hasMessageStartingWith("the cluster has GPUs of Gavel's types [k80, v100]");
        // Lucid's pairs: the Gavel GPU type is not read, so nothing contradicts
        assertThat(spec(DataSource.LUCID_PAIRS.name(), "v100", "1x4:K80-12GB").gavelGpu()).isEqualTo("v100");
    }
}
