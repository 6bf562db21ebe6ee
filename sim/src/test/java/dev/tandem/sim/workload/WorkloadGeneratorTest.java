package dev.tandem.sim.workload;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class WorkloadGeneratorTest {
    static final List<JobProfile> PROFILES = ProfileReader.read(DataSource.LUCID_PROFILES, 0);

    @Test
    void seededAndWithinTheSpec() {
        WorkloadSpec spec = WorkloadSpec.of(4000, "batch", "1:0.7,2:0.1,4:0.15,8:0.05", 1800, 57600, 42);
        List<Job> a = WorkloadGenerator.generate(spec, PROFILES, (p, s) -> true);
        assertThat(WorkloadGenerator.generate(spec, PROFILES, (p, s) -> true)).isEqualTo(a);
        assertThat(WorkloadGenerator.generate(WorkloadSpec.of(4000, "batch", "1", 1800, 57600, 43), PROFILES, (p, s) -> true)).isNotEqualTo(a);
        assertThat(a).allMatch(j -> j.submitTime() == 0);
        double ones = a.stream().filter(j -> j.gpus() == 1).count() / 4000.0;
        double eights = a.stream().filter(j -> j.gpus() == 8).count() / 4000.0;
        assertThat(ones).isCloseTo(0.7, within(0.03));
        assertThat(eights).isCloseTo(0.05, within(0.015));
        for (Job j : a) {
            JobProfile p = PROFILES.stream().filter(x -> x.signature().equals(j.signature())).findFirst().orElseThrow();
            double d = j.totalIterations() / p.soloSpeed();
            assertThat(d).isBetween(1800.0, 57600.0);
            assertThat(j.memoryMiB()).isEqualTo(Math.round(p.gmemMiB()));
        }
        // log-uniform: the median duration is the geometric mean of the bounds
        double[] ds = a.stream().mapToDouble(j -> j.totalIterations() / PROFILES.stream().filter(x -> x.signature().equals(j.signature())).findFirst().get().soloSpeed()).sorted().toArray();
        assertThat(ds[2000]).isCloseTo(Math.sqrt(1800.0 * 57600), within(1200.0));
    }

    @Test
    void poissonArrivalsHaveTheRequestedRate() {
        List<Job> a = WorkloadGenerator.generate(WorkloadSpec.of(5000, "poisson:10", "1", 60, 600, 1), PROFILES, (p, s) -> true);
        double span = a.get(a.size() - 1).submitTime();
        assertThat(5000 / (span / 3600)).isCloseTo(10, within(0.5));
    }

    @Test
    void badSpecsAreClearErrors() {
        assertThatThrownBy(() -> WorkloadSpec.of(10, "uniform", "1", 60, 600, 1)).hasMessageContaining("'uniform'");
        assertThatThrownBy(() -> WorkloadSpec.of(10, "poisson:x", "1", 60, 600, 1)).hasMessageContaining("rate is not a number");
        assertThatThrownBy(() -> WorkloadSpec.of(10, "batch", "1:0.5,two", 60, 600, 1)).hasMessageContaining("'two'");
        assertThatThrownBy(() -> WorkloadSpec.of(10, "batch", "1", 600, 60, 1)).hasMessageContaining("0 < min <= max");
        assertThatThrownBy(() -> WorkloadSpec.of(0, "batch", "1", 60, 600, 1)).hasMessageContaining("at least one job");
    }
}
