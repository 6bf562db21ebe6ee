package dev.tandem.bench;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.model.Job;
import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Occupancy;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.sim.scenario.Scenario;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One scheduling decision with 1,000 queued jobs on 1,000 GPUs, every GPU running one job (so the packing
 * policies must weigh partners). FIFO is the baseline in the same run. {@code firstDecision} includes what a
 * policy computes once and then reuses (tandem's pairing plan).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PolicyDecisionBenchmark {
    @Param({"fifo", "sjf", "srtf", "tiresias", "fifo-packed", "gavel-packed", "lucid", "gandiva", "tandem"})
    public String policy;

    private Scenario scenario;
    private List<PendingJob> queue;
    private List<RunningJob> running;
    private dev.tandem.core.compat.CompatibilityModel oracle;
    private Occupancy occupancy;
    private Policy instance;

    @Setup(Level.Trial)
    public void setUp() {
        Scenario s = WholeRunBenchmark.scenario(2000, "125x8:RTX3090-24GB", "batch", "1");
        List<RunningJob> running = new ArrayList<>();
        List<PendingJob> queue = new ArrayList<>();
        List<Job> jobs = s.jobs();
        for (int i = 0; i < 1000; i++) running.add(new RunningJob(jobs.get(i), List.of(i), 0, 0, jobs.get(i).totalIterations(), 0, Double.NaN));
        for (int i = 1000; i < 2000; i++) queue.add(new PendingJob(jobs.get(i), 0, 0, jobs.get(i).totalIterations(), 0));
        this.scenario = s;
        this.queue = List.copyOf(queue);
        this.running = List.copyOf(running);
        this.oracle = s.newOracle();
        this.occupancy = dev.tandem.core.runtime.PlacedOccupancy.of(s.cluster(), this.running);
    }

    /**
     * A new snapshot per decision, as every world makes one per round (its memo of the oracle's answers starts
     * empty); the occupancy indexes are the world's, kept up to date by it, so they are built once here.
     */
    private SchedulerSnapshot snapshot() {
        return new SchedulerSnapshot(3600, scenario.cluster(), queue, running, scenario.profiles(), oracle, MemoryRule.DEFAULT, Map.of(), Set.of(), occupancy);
    }

    @Setup(Level.Iteration)
    public void freshPolicy() {
        instance = PolicyCatalog.create(policy);
    }

    /**
     * A decision of a policy that has decided before (tandem reuses its plan: the common case). A policy with rounds of
     * its own (gavel-packed) is asked here inside its round, where it keeps its allocation; its round's end is
     * {@link #firstDecision}.
     */
    @Benchmark
    public List<Decision> decide() {
        return instance.decide(snapshot());
    }

    /** The first decision of a fresh policy: tandem solves its configuration LP over the 2,000 jobs first. */
    @Benchmark
    public List<Decision> firstDecision() {
        return PolicyCatalog.create(policy).decide(snapshot());
    }
}
