package dev.tandem.bench;

import dev.tandem.core.compat.KernelRegressionModel;
import dev.tandem.core.compat.PairObservation;
import dev.tandem.core.compat.UtilSumModel;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.data.DataSource;
import dev.tandem.data.TrainingPairs;
import dev.tandem.data.ProfileReader;
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
import java.util.concurrent.TimeUnit;

/** Fitting a model and predicting the full 53 x 53 pair matrix of the Lucid profiles (uncached), kNN vs util-sum. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CompatibilityBenchmark {
    private List<PairObservation> training;
    private List<JobProfile> profiles;

    @Setup
    public void setUp() {
        ProfileStore store = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0));
        profiles = new ArrayList<>(store.all());
        training = TrainingPairs.load(DataSource.LUCID_PAIRS, store, "v100");
    }

    @Benchmark
    public double knnFitAndMatrix() {
        KernelRegressionModel m = KernelRegressionModel.fit(training);
        double s = 0;
        for (JobProfile a : profiles) for (JobProfile b : profiles) s += m.predict(a, b).combined();
        return s;
    }

    @Benchmark
    public double utilSumFitAndMatrix() {
        UtilSumModel m = UtilSumModel.fit(training);
        double s = 0;
        for (JobProfile a : profiles) for (JobProfile b : profiles) s += m.predict(a, b).combined();
        return s;
    }
}
