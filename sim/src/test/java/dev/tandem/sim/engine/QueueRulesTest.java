package dev.tandem.sim.engine;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.policies.FifoPolicy;
import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.List;

import static dev.tandem.sim.engine.SimulatorTest.A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The daemon's queue rules in the simulator ({@link QueueRules}), worked by hand on one and two GPUs under FIFO. */
class QueueRulesTest {
    /** A on one GPU alone runs 100 it/s: each job below takes 1,000 s. */
    private static final double HOUR_OF_ITERATIONS = 100_000;

    private static List<String> startOrder(SimConfig cfg, int gpus, List<Job> jobs) {
        Cluster c = Cluster.homogeneous(1, gpus, new GpuType("T", 24576), 8, 1 << 16);
        SimulationResult r = new Simulator(cfg, c, SimulatorTest.profiles(1000, 1000), SimulatorTest.truth(0.8, 0.6)).run(jobs, new FifoPolicy(), null);
        return r.jobs().stream().sorted(Comparator.comparingDouble(JobRecord::firstStart)).map(JobRecord::id).toList();
    }

    private static Job job(String id, String user, double submit) {
        return new Job(id, user, submit, 1, A, HOUR_OF_ITERATIONS, 1000, 0);
    }

    @Test void fairShareServesTheUserWithOneJobBeforeAnothersBacklog() {
        // two GPUs; alice submits four jobs at t=0, bob one at t=10. a1 and a2 run until t=1,000 s; then by submission a3
        // and a4 run and bob waits until t=2,000 s. With fair share a job ranks by the GPUs its user would hold once it
        // and the user's earlier waiting jobs run: a3 1, a4 2, b1 1, so a3 and b1 start at t=1,000 s
        List<Job> jobs = List.of(job("a1", "alice", 0), job("a2", "alice", 0), job("a3", "alice", 0), job("a4", "alice", 0), job("b1", "bob", 10));
        SimConfig plain = new SimConfig(0, 60, 30, 0, new MemoryRule(0));
        assertThat(startOrder(plain, 2, jobs)).containsExactly("a1", "a2", "a3", "a4", "b1");
        assertThat(startOrder(plain.withQueueRules(QueueRules.daemon(0)), 2, jobs)).containsExactly("a1", "a2", "a3", "b1", "a4");
    }

    @Test void aUserAtTheGpuLimitWaitsWhileGpusAreFree() {
        // two GPUs, alice limited to one at a time: a2 waits for a1 (t=1,000 s) although GPU 1 is idle; bob's job,
        // submitted later, takes it at once
        List<Job> jobs = List.of(job("a1", "alice", 0), job("a2", "alice", 0), job("b1", "bob", 10));
        Cluster c = Cluster.homogeneous(1, 2, new GpuType("T", 24576), 8, 1 << 16);
        SimConfig limited = new SimConfig(0, 60, 30, 0, new MemoryRule(0)).withQueueRules(QueueRules.daemon(1));
        SimulationResult r = new Simulator(limited, c, SimulatorTest.profiles(1000, 1000), SimulatorTest.truth(0.8, 0.6)).run(jobs, new FifoPolicy(), null);
        assertThat(r.jobs()).extracting(JobRecord::id).containsExactly("a1", "a2", "b1");
        assertThat(r.jobs().get(1).firstStart()).isCloseTo(1000, within(1e-6));
        assertThat(r.jobs().get(2).firstStart()).isCloseTo(10, within(1e-6));
    }

    @Test void aJobWiderThanTheLimitIsRefusedBeforeTheRun() {
        Cluster c = Cluster.homogeneous(1, 4, new GpuType("T", 24576), 8, 1 << 16);
        SimConfig limited = new SimConfig(0, 60, 30, 0, new MemoryRule(0)).withQueueRules(QueueRules.daemon(1));
        List<Job> jobs = List.of(new Job("wide", "alice", 0, 2, A, HOUR_OF_ITERATIONS, 1000, 0));
        assertThatThrownBy(() -> new Simulator(limited, c, SimulatorTest.profiles(1000, 1000), SimulatorTest.truth(0.8, 0.6)).run(jobs, new FifoPolicy(), null))
                .hasMessageContaining("job wide needs 2 GPUs; each user may hold at most 1 at once");
        assertThatThrownBy(() -> new QueueRules(false, 2)).hasMessageContaining("needs fair share");
        assertThatThrownBy(() -> QueueRules.daemon(-1)).hasMessageContaining("must not be negative");
    }
}
