package dev.tandem.bench;

import dev.tandem.core.model.JobProfile;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.data.truth.ContentionFallback;
import dev.tandem.data.truth.InterferenceTruth;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The speed-update hot path: every time a GPU's set of jobs changes the simulator asks the ground truth for
 * the new pair's speeds. Measured-table lookup (what runs) against the closed-form fallback model (the
 * cheapest possible answer) for 1,000 random pairs of the Lucid profiles.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TruthLookupBenchmark {
    private InterferenceTruth truth;
    private final ContentionFallback fallback = ContentionFallback.standard();
    private JobProfile[] a, b;

    @Setup
    public void setUp() {
        Scenario s = WholeRunBenchmark.scenario(10, "1x8:RTX3090-24GB", "batch", "1");
        truth = s.truth();
        List<JobProfile> ps = new ArrayList<>(s.profiles().all());
        SplittableRandom r = new SplittableRandom(3);
        a = new JobProfile[1000];
        b = new JobProfile[1000];
        for (int i = 0; i < 1000; i++) {
            a[i] = ps.get(r.nextInt(ps.size()));
            b[i] = ps.get(r.nextInt(ps.size()));
        }
    }

    @Benchmark
    public double measuredTruth() {
        double s = 0;
        for (int i = 0; i < a.length; i++) s += truth.pair(a[i], b[i], 1).speedA();
        return s;
    }

    @Benchmark
    public double fallbackBaseline() {
        double s = 0;
        for (int i = 0; i < a.length; i++) s += fallback.pair(a[i], b[i]).speedA();
        return s;
    }
}
