package dev.tandem.sim.engine;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.policies.FifoPolicy;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class KnowledgeTest {
    private static final Cluster ONE_NODE = Cluster.homogeneous(1, 1, new GpuType("T", 24576), 8, 1 << 16);

    /** {@code n} one-GPU jobs submitted at 0, of 1,000 to n x 1,000 iterations. */
    private static List<Job> jobs(int n) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) jobs.add(new Job("j" + i, "u", 0, 1, SimulatorTest.A, 1000.0 * (i + 1), 1000, 0));
        return jobs;
    }

    /** FIFO that records the remaining iterations it was shown for each queued job at its first look. */
    static final class Recording implements Policy {
        final Map<String, Double> seen = new HashMap<>();
        final FifoPolicy fifo = new FifoPolicy();

        @Override public String name() { return "recording"; }

        @Override public List<Decision> decide(SchedulerSnapshot s) {
            for (PendingJob p : s.queue()) seen.putIfAbsent(p.id(), p.remainingIterations());
            return fifo.decide(s);
        }
    }

    private static Map<String, Double> seen(Knowledge k, long seed) {
        List<Job> jobs = jobs(40);
        SimConfig cfg = new SimConfig(0, 60, 30, 0, new MemoryRule(0)).withKnowledge(k, seed);
        Recording r = new Recording();
        SimulationResult result = new Simulator(cfg, ONE_NODE, SimulatorTest.profiles(1000, 1000), SimulatorTest.truth(0.8, 0.6)).run(jobs, r, null);
        assertThat(result.metrics().jobs_completed()).isEqualTo(40);
        return r.seen;
    }

    @Test
    void exactShowsTheTrueWork() {
        Map<String, Double> s = seen(Knowledge.EXACT, 1);
        for (int i = 0; i < 40; i++) assertThat(s.get("j" + i)).isEqualTo(1000.0 * (i + 1));
    }

    @Test
    void noisyShowsAFixedLogNormalErrorPerJob() {
        Map<String, Double> a = seen(Knowledge.noisy(1), 7), again = seen(Knowledge.noisy(1), 7), other = seen(Knowledge.noisy(1), 8);
        assertThat(a).isEqualTo(again);
        assertThat(a).isNotEqualTo(other);
        double sumLog = 0, sumSq = 0;
        for (int i = 0; i < 40; i++) {
            double log = Math.log(a.get("j" + i) / (1000.0 * (i + 1)));
            sumLog += log;
            sumSq += log * log;
        }
        double mean = sumLog / 40, sd = Math.sqrt(sumSq / 40 - mean * mean);
        assertThat(mean).isCloseTo(0, within(0.5));
        assertThat(sd).isBetween(0.6, 1.4); // sigma 1
    }

    /**
     * Without lengths a job is shown as needing as long as it has run, at least the floor, at its solo speed: the rule
     * the daemon applies to a job submitted without its length. Waiting jobs that never ran show the floor; each
     * running job's number grows with the service it has had.
     */
    @Test
    void noneShowsAJobAsNeedingAsLongAsItHasRun() {
        Map<String, Double> s = seen(Knowledge.NONE, 1);
        double speed = SimulatorTest.profiles(1000, 1000).get(SimulatorTest.A).soloSpeed();
        for (int i = 0; i < 40; i++) {
            assertThat(s.get("j" + i)).isCloseTo(SchedulerSnapshot.UNKNOWN_LENGTH_FLOOR_SECONDS * speed, within(1e-6));
        }
        List<double[]> running = new ArrayList<>(); // attained GPU-seconds, iterations shown
        Policy watching = new Policy() {
            final FifoPolicy fifo = new FifoPolicy();
            @Override public String name() { return "watching"; }
            @Override public boolean actsOnRunningJobs() { return true; }
            @Override public List<Decision> decide(SchedulerSnapshot snap) {
                for (var r : snap.running()) running.add(new double[] {r.attainedGpuSeconds(), r.remainingIterations()});
                return fifo.decide(snap);
            }
        };
        SimConfig cfg = new SimConfig(300, 60, 30, 0, new MemoryRule(0)).withKnowledge(Knowledge.NONE, 1);
        List<Job> longer = new ArrayList<>(); // 500 to 2,000 s alone
        for (int i = 0; i < 16; i++) longer.add(new Job("l" + i, "u", 0, 1, SimulatorTest.A, 50_000.0 + 10_000 * i, 1000, 0));
        new Simulator(cfg, ONE_NODE, SimulatorTest.profiles(1000, 1000), SimulatorTest.truth(0.8, 0.6)).run(longer, watching, null);
        assertThat(running).isNotEmpty();
        boolean pastTheFloor = false;
        for (double[] r : running) {
            assertThat(r[1]).isCloseTo(Math.max(r[0], SchedulerSnapshot.UNKNOWN_LENGTH_FLOOR_SECONDS) * speed, within(1e-6));
            pastTheFloor |= r[0] > SchedulerSnapshot.UNKNOWN_LENGTH_FLOOR_SECONDS;
        }
        assertThat(pastTheFloor).as("some job was watched after 10 minutes of service").isTrue();
    }

    @Test
    void aLengthIsKnownUntilTheJobOutrunsItsEstimate() {
        // exact: always; none: never; noisy: while the job has done less than its estimate (factor x total)
        assertThat(Knowledge.EXACT.lengthKnown(1000, 5000, 1)).isTrue();
        assertThat(Knowledge.NONE.lengthKnown(1000, 0, 1)).isFalse();
        Knowledge noisy = Knowledge.noisy(1);
        assertThat(noisy.lengthKnown(1000, 0, 0.5)).isTrue();
        assertThat(noisy.lengthKnown(1000, 499, 0.5)).isTrue();
        assertThat(noisy.lengthKnown(1000, 500, 0.5)).as("estimate of 500 used up").isFalse();
        assertThat(noisy.lengthKnown(1000, 900, 2)).isTrue();
        // what is left of the estimate, to its last iterations, as the daemon shows what is left of --iterations
        assertThat(noisy.seenRemaining(1000, 490, 30, 0.5, 5000, 1, 100)).isCloseTo(40, within(1e-9));
        assertThat(noisy.seenRemaining(1000, 500, 30, 0.5, 5000, 1, 100)).as("outrun: as long as it has run")
                .isCloseTo(SchedulerSnapshot.unknownLengthIterations(5000, 1, 100), within(1e-9));
        // the policies see it: a job whose estimate is half its work is shown with a known length at first, and without
        // one once it has run past the estimate (it is then ranked by the service it had, see expectedSoloSeconds)
        List<Job> jobs = jobs(40);
        Map<Boolean, Integer> views = new HashMap<>(Map.of(true, 0, false, 0));
        double speed = SimulatorTest.profiles(1000, 1000).get(SimulatorTest.A).soloSpeed();
        Policy watching = new Policy() {
            final FifoPolicy fifo = new FifoPolicy();
            @Override public String name() { return "watching"; }
            @Override public boolean actsOnRunningJobs() { return true; }
            @Override public List<Decision> decide(SchedulerSnapshot s) {
                for (var r : s.running()) {
                    views.merge(r.lengthKnown(), 1, Integer::sum);
                    // past its estimate a job is shown as one of unknown length is: as long as it has run, at least the floor
                    if (!r.lengthKnown()) {
                        assertThat(r.remainingIterations()).isCloseTo(SchedulerSnapshot.unknownLengthIterations(r.attainedGpuSeconds(), 1, speed), within(1e-6));
                    }
                }
                return fifo.decide(s);
            }
        };
        SimConfig cfg = new SimConfig(300, 60, 30, 0, new MemoryRule(0)).withKnowledge(noisy, 1);
        new Simulator(cfg, ONE_NODE, SimulatorTest.profiles(1000, 1000), SimulatorTest.truth(0.8, 0.6)).run(jobs, watching, null);
        assertThat(views.get(true)).isPositive();
        assertThat(views.get(false)).as("some job outran its estimate while watched").isPositive();
    }

    /**
     * The world tells policies how far declared lengths proved right (each completed job's declaration against its
     * work): exact ones stay trusted; seen through an error of sigma 1 they lose trust once enough jobs have ended, and
     * {@code SchedulerSnapshot.knowsLength} then says no for every job; with none no job declared one to judge.
     */
    @Test
    void declaredLengthsLoseTrustOnceCompletedJobsShowThemFarOff() {
        for (Knowledge k : List.of(Knowledge.EXACT, Knowledge.noisy(1), Knowledge.NONE)) {
            List<Job> jobs = jobs(60);
            List<Boolean> trusted = new ArrayList<>();
            Policy watching = new Policy() {
                final FifoPolicy fifo = new FifoPolicy();
                @Override public String name() { return "watching"; }
                @Override public List<Decision> decide(SchedulerSnapshot s) {
                    trusted.add(s.knowsLength(true));
                    return fifo.decide(s);
                }
            };
            SimConfig cfg = new SimConfig(300, 60, 30, 0, new MemoryRule(0)).withKnowledge(k, 1);
            new Simulator(cfg, ONE_NODE, SimulatorTest.profiles(1000, 1000), SimulatorTest.truth(0.8, 0.6)).run(jobs, watching, null);
            assertThat(trusted.get(0)).as(k + " at the start").isTrue();
            if (k.kind() == Knowledge.Kind.NOISY) assertThat(trusted.get(trusted.size() - 1)).as(k + " at the end").isFalse();
            else assertThat(trusted).as(k.toString()).containsOnly(true);
        }
    }

    @Test
    void parsesAndRefuses() {
        assertThat(Knowledge.parse("exact")).isEqualTo(Knowledge.EXACT);
        assertThat(Knowledge.parse(" NONE ")).isEqualTo(Knowledge.NONE);
        assertThat(Knowledge.parse("noisy:0.5")).isEqualTo(Knowledge.noisy(0.5));
        assertThat(Knowledge.parse("noisy:1").toString()).isEqualTo("noisy:1");
        for (String bad : List.of("", "noisy", "noisy:", "noisy:x", "noisy:0", "noisy:-1", "noisy:9", "perfect")) {
            assertThatThrownBy(() -> Knowledge.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--knowledge");
        }
    }
}
