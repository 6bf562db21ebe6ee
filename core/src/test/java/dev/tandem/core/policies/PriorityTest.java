package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.runtime.Admission;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Job priority goes before every policy's own order: after {@link Admission}, any policy serves the higher priority first. */
class PriorityTest {
    static Stream<String> policies() {
        return Stream.concat(PolicyCatalog.names().stream(), Stream.of("tandem:jct", "tandem:makespan"));
    }

    private static Job job(String id, WorkloadSignature sig, double soloSeconds, double submit, int priority) {
        return new Job(id, "u", submit, 1, sig, soloSeconds * 10, 12_000, priority);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aLaterLongerJobOfHigherPriorityStartsFirst(String name) {
        // one GPU; two jobs that cannot share it (12 GB each of 16); the low-priority one is earlier and shorter, so
        // FIFO, SJF, SRTF and tandem's orders would all pick it without priority
        Fixture f = new Fixture(1, 1, 16_000);
        WorkloadSignature a = f.profile("a", 50, 12_000), b = f.profile("b", 50, 12_000);
        f.predict("a", "b", 0.9, 0.9, 0.05);
        f.queued(job("low", a, 600, 0, 0)).queued(job("high", b, 6_000, 10, 5));
        f.now = 20;
        Admission.Result admitted = Admission.admit(f.queue, Map.of(), u -> OptionalInt.empty());
        assertThat(admitted.admitted()).extracting(p -> p.id()).containsExactly("high", "low");
        f.queue.clear();
        f.queue.addAll(admitted.admitted());
        Policy p = PolicyCatalog.create(name);
        List<Decision> ds = p.decide(f.snapshot());
        assertThat(Fixture.started(ds)).as(name).containsExactly("high");
    }

    @ParameterizedTest
    @ValueSource(strings = {"srtf", "tiresias"})
    void aQueuedJobOfHigherPriorityPreemptsARunningOneAndNeverTheOtherWayRound(String name) {
        Fixture f = new Fixture(1, 1, 16_000);
        WorkloadSignature a = f.profile("a", 50, 12_000), b = f.profile("b", 50, 12_000);
        f.running(job("low", a, 60, 0, 0), List.of(0), 60, 0, 1).queued(job("high", b, 6_000, 10, 5));
        f.now = 20;
        List<Decision> ds = PolicyCatalog.create(name).decide(f.snapshot());
        assertThat(Fixture.preempted(ds)).containsExactly("low");
        assertThat(Fixture.started(ds)).containsExactly("high");

        Fixture g = new Fixture(1, 1, 16_000);
        g.profile("a", 50, 12_000);
        g.profile("b", 50, 12_000);
        g.running(job("high", b, 6_000, 0, 5), List.of(0), 6_000, 0, 1).queued(job("low", a, 60, 10, 0));
        g.now = 20;
        assertThat(PolicyCatalog.create(name).decide(g.snapshot())).as("a shorter job of lower priority waits").isEmpty();
    }
}
