package dev.tandem.cli;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.KernelRegressionModel;
import dev.tandem.core.compat.LeaveOneModelOut;
import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.PairObservation;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.compat.UtilSumModel;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.data.DataSource;
import dev.tandem.data.TrainingPairs;
import dev.tandem.data.PairsAnnotator;
import dev.tandem.data.ProfileReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/** {@code tandem compat}: the compatibility model on its own. */
@Command(name = "compat", mixinStandardHelpOptions = true, footer = {"", "Example: tandem compat matrix"}, description = "Predict, evaluate and inspect the co-location compatibility model.",
        subcommands = {CompatCommand.Predict.class, CompatCommand.Evaluate.class, CompatCommand.Matrix.class})
final class CompatCommand {

    static class ModelOptions {
        @Option(names = "--profiles", defaultValue = DataSource.BUNDLED + "lucid/single_profiles.csv", description = "Solo profiles. Default: ${DEFAULT-VALUE}.")
        String profiles;

        @Option(names = "--train", defaultValue = DataSource.BUNDLED + "lucid/colocation_pairs.csv", description = "Measured pairs to learn from. Default: ${DEFAULT-VALUE}.")
        String train;

        @Option(names = "--model", defaultValue = "knn", description = "knn (tandem's learned model) or util-sum (the baseline). Default: ${DEFAULT-VALUE}.")
        String model;

        @Option(names = "--gpu-memory", defaultValue = "24576", description = "GPU memory in MiB for the fit check. Default: ${DEFAULT-VALUE}.")
        long gpuMemory;

        @Option(names = "--memory-margin", defaultValue = "512", description = "MiB budgeted per job beyond its profiled peak. Default: ${DEFAULT-VALUE}.")
        long margin;

        ProfileStore store() {
            return new ProfileStore(ProfileReader.read(DataSource.of(profiles), gpuMemory));
        }

        CompatibilityModel fit(ProfileStore store) {
            List<PairObservation> obs = TrainingPairs.load(DataSource.of(train), store, "v100");
            return switch (model) {
                case "knn" -> KernelRegressionModel.fit(obs);
                case "util-sum" -> UtilSumModel.fit(obs);
                default -> throw new IllegalArgumentException("unknown model '" + model + "'; known: knn, util-sum");
            };
        }
    }

    @Command(name = "predict", mixinStandardHelpOptions = true, footer = {"", "Example: tandem compat predict --pairs my-pairs.csv --out predicted.csv"}, sortOptions = false,
            description = "Add pred_speed1, pred_speed2, pred_fits to every row of a pairs CSV in Lucid's format.")
    static final class Predict implements Callable<Integer> {
        @picocli.CommandLine.Mixin ModelOptions opts;

        @Option(names = "--pairs", required = true, description = "Pairs CSV (model1,dataset1,gpu_num1,batchsize1,amp1,...,model2,...); speed columns are ignored.")
        String pairs;

        @Option(names = "--out", required = true, description = "Output CSV.")
        Path out;

        @Override public Integer call() throws Exception {
            ProfileStore store = opts.store();
            CompatibilityModel m = opts.fit(store);
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            // write to a temporary file first so a failure never leaves a half-written output behind
            Path tmp = Files.createTempFile(parent, ".tandem-predict", ".csv");
            try {
                int rows;
                try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                    rows = PairsAnnotator.annotate(DataSource.of(pairs), w, store, m, new MemoryRule(opts.margin), opts.gpuMemory);
                }
                Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                System.out.printf(Locale.ROOT, "wrote %d predicted pairs to %s (model %s)%n", rows, out, m.name());
            } finally {
                Files.deleteIfExists(tmp);
            }
            return 0;
        }
    }

    @Command(name = "evaluate", mixinStandardHelpOptions = true, footer = {"", "Example: tandem compat evaluate"},
            description = "Leave-one-model-out evaluation of tandem's model against the utilisation-sum baseline.")
    static final class Evaluate implements Callable<Integer> {
        @Option(names = "--profiles", defaultValue = DataSource.BUNDLED + "lucid/single_profiles.csv", description = "Solo profiles. Default: ${DEFAULT-VALUE}.")
        String profiles;

        @Option(names = "--pairs", defaultValue = DataSource.BUNDLED + "lucid/colocation_pairs.csv", description = "Measured pairs. Default: ${DEFAULT-VALUE}.")
        String pairs;

        @Option(names = "--k", defaultValue = "10", description = "Neighbours of the kNN model. Default: ${DEFAULT-VALUE}.")
        int k;

        @Override public Integer call() {
            ProfileStore store = new ProfileStore(ProfileReader.read(DataSource.of(profiles), 0));
            List<PairObservation> obs = TrainingPairs.load(DataSource.of(pairs), store, "v100");
            LeaveOneModelOut.Result knn = LeaveOneModelOut.evaluate(obs, t -> KernelRegressionModel.fit(t, k));
            LeaveOneModelOut.Result base = LeaveOneModelOut.evaluate(obs, UtilSumModel::fit);
            System.out.printf(Locale.ROOT, "leave-one-model-out on %d pairs (%s)%n", obs.size(), pairs);
            System.out.printf(Locale.ROOT, "%-14s %6s %12s %12s %14s %14s%n", "held out", "pairs", "MAE knn", "MAE util-sum", "Spearman knn", "Spearman util");
            for (int i = 0; i < knn.rows().size(); i++) {
                LeaveOneModelOut.Row a = knn.rows().get(i), b = base.rows().get(i);
                System.out.printf(Locale.ROOT, "%-14s %6d %12.4f %12.4f %14.3f %14.3f%n", a.heldOut(), a.pairs(), a.maePerJob(), b.maePerJob(), a.spearmanCombined(), b.spearmanCombined());
            }
            System.out.printf(Locale.ROOT, "%-14s %6s %12.4f %12.4f %14.3f %14.3f%n", "pooled", "", knn.maePerJob(), base.maePerJob(), knn.spearmanCombined(), base.spearmanCombined());
            System.out.printf(Locale.ROOT, "per-job speed MAE: knn %.4f vs util-sum %.4f (%.1f%% lower)%n", knn.maePerJob(), base.maePerJob(),
                    100 * (1 - knn.maePerJob() / base.maePerJob()));
            return 0;
        }
    }

    @Command(name = "matrix", mixinStandardHelpOptions = true, footer = {"", "Example: tandem compat matrix --csv pairs.csv"},
            description = {"Print the predicted combined speed of every pair of DL models in a profile set.",
                    "The combined speed is the sum of both jobs' speeds relative to solo, averaged per DL model; --csv writes every",
                    "profile pair."})
    static final class Matrix implements Callable<Integer> {
        @picocli.CommandLine.Mixin ModelOptions opts;

        @Option(names = "--csv", description = "Write the full pairwise matrix (every profile pair) to this CSV file.")
        Path csv;

        @Override public Integer call() throws Exception {
            ProfileStore store = opts.store();
            CompatibilityModel m = opts.fit(store);
            MemoryRule mem = new MemoryRule(opts.margin);
            List<JobProfile> all = new ArrayList<>(store.all());
            TreeSet<String> models = new TreeSet<>();
            all.forEach(p -> models.add(p.signature().model()));
            Map<String, double[]> acc = new LinkedHashMap<>();
            StringBuilder full = new StringBuilder("workload1,workload2,pred_speed1,pred_speed2,pred_combined,uncertainty,fits\n");
            for (JobProfile a : all) {
                for (JobProfile b : all) {
                    PairPrediction pr = m.predict(a, b);
                    boolean fits = mem.fits(opts.gpuMemory, Math.round(a.gmemMiB()), Math.round(b.gmemMiB()));
                    full.append(String.format(Locale.ROOT, "%s,%s,%.4f,%.4f,%.4f,%.4f,%d%n", a.signature().label(), b.signature().label(),
                            pr.speedA(), pr.speedB(), pr.combined(), pr.uncertainty(), fits ? 1 : 0));
                    double[] v = acc.computeIfAbsent(a.signature().model() + "|" + b.signature().model(), x -> new double[3]);
                    if (fits) { v[0] += pr.combined(); v[1]++; } else v[2]++;
                }
            }
            System.out.printf(Locale.ROOT, "predicted combined speed (2.00 = both at solo speed), mean over variants that fit in %d MiB; '--' = none fits%n", opts.gpuMemory);
            System.out.printf("%-13s", "");
            for (String b : models) System.out.printf(" %6.6s", b);
            System.out.println();
            for (String a : models) {
                System.out.printf("%-13.13s", a);
                for (String b : models) {
                    double[] v = acc.get(a + "|" + b);
                    System.out.print(v == null || v[1] == 0 ? "     --" : String.format(Locale.ROOT, " %6.2f", v[0] / v[1]));
                }
                System.out.println();
            }
            if (csv != null) OutputFiles.write(csv, full.toString());
            return 0;
        }
    }
}
