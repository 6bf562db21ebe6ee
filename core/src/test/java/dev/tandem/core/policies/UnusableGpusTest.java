package dev.tandem.core.policies;

import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Occupancy;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GPUs a world marks unusable (live: busy with processes that are not the scheduler's) are neither idle nor hosts
 * for a partner, for every policy: a queued job goes to a usable GPU or waits.
 */
class UnusableGpusTest {
    static List<String> policies() { return PolicyCatalog.names(); }

    @ParameterizedTest
    @MethodSource("policies")
    void aJobStartsOnlyOnAUsableGpu(String name) {
        Fixture f = new Fixture(1, 3, 24576);
        WorkloadSignature a = f.profile("A", 30, 2000);
        f.queued(f.job("q", a, 1, 100, 1));
        Policy p = PolicyCatalog.create(name);
        SchedulerSnapshot s = f.snapshotWithUnusable(Set.of(0, 1));
        List<Decision> ds = p.decide(s);
        assertThat(Fixture.started(ds)).as(name).containsExactly("q");
        assertThat(Fixture.start(ds, "q").gpus()).as(name).containsExactly(2);

        Fixture none = new Fixture(1, 2, 24576);
        none.queued(none.job("q", none.profile("A", 30, 2000), 1, 100, 1));
        assertThat(Fixture.started(PolicyCatalog.create(name).decide(none.snapshotWithUnusable(Set.of(0, 1))))).as(name).isEmpty();
    }

    /** A lone job on a GPU someone else also uses takes no partner; the same job on a usable GPU does. */
    @ParameterizedTest
    @MethodSource("policies")
    void aJobOnAnUnusableGpuIsNoHost(String name) {
        Fixture f = new Fixture(1, 2, 24576);
        WorkloadSignature a = f.profile("A", 30, 2000), b = f.profile("B", 30, 2000);
        f.running(f.job("ra", a, 1, 100, 0), List.of(0), 100, 0, Double.NaN);
        f.running(f.job("rb", a, 1, 100, 0), List.of(1), 100, 0, Double.NaN);
        f.queued(f.job("q", b, 1, 100, 1)).predict("A", "B", 0.95, 0.95, 0);
        List<Decision> ds = PolicyCatalog.create(name).decide(f.snapshotWithUnusable(Set.of(0)));
        for (Decision d : ds) {
            if (d instanceof Decision.Start st) assertThat(st.gpus()).as(name + ": " + d).doesNotContain(0);
        }
        List<Decision> both = PolicyCatalog.create(name).decide(f.snapshotWithUnusable(Set.of(0, 1)));
        assertThat(Fixture.started(both)).as(name).isEmpty();
    }

    @Test
    void theOccupancyCountsUnusableGpusAsTaken() {
        Fixture f = new Fixture(2, 2, 24576);
        WorkloadSignature a = f.profile("A", 30, 2000);
        f.running(f.job("r", a, 1, 100, 0), List.of(0), 100, 0, Double.NaN);
        Occupancy o = dev.tandem.core.runtime.PlacedOccupancy.of(f.cluster, f.running, Set.of(0, 3));
        assertThat(o.idleTotal()).isEqualTo(2);
        assertThat(o.idleOnNode(0)).isEqualTo(1);
        assertThat(o.idleOnNode(1)).isEqualTo(1);
        assertThat(o.usable(0)).isFalse();
        assertThat(o.usable(1)).isTrue();
        assertThat(o.soleTenants()).as("alone, but next to someone else's processes").isEmpty();
        SchedulerSnapshot s = f.snapshotWithUnusable(Set.of(0, 3));
        ClusterView v = new ClusterView(s);
        assertThat(v.findIdle(3)).isEmpty();
        assertThat(v.findIdle(2)).as("this cluster lets gangs span nodes").contains(List.of(1, 2));
        assertThat(v.findIdle(1)).contains(List.of(1));
        assertThat(v.soleTenancy("r")).isEmpty();
    }
}
