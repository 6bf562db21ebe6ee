package dev.tandem.bench;

import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.scenario.Scenario;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/** A whole simulation of 1,000 jobs on 64 GPUs (event loop, speed updates and policy together). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SimulatorBenchmark {
    @Param({"fifo", "tandem"})
    public String policy;

    private Scenario scenario;

    @Setup
    public void setUp() {
        scenario = WholeRunBenchmark.scenario(1000, "8x8:RTX3090-24GB", "poisson:15", "1:0.7,2:0.1,4:0.15,8:0.05");
    }

    @Benchmark
    public SimulationResult simulate() {
        return scenario.run(policy, (d, t, s) -> {});
    }
}
