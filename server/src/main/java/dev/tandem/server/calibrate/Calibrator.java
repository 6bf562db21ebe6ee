package dev.tandem.server.calibrate;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.KernelRegressionModel;
import dev.tandem.core.compat.LeaveOneModelOut;
import dev.tandem.core.compat.PairObservation;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.Csv;
import dev.tandem.data.DataSource;
import dev.tandem.data.LucidPairReader;
import dev.tandem.data.MeasuredPair;
import dev.tandem.data.ProfileReader;
import dev.tandem.data.TrainingPairs;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.gpu.GpuSample;
import dev.tandem.server.gpu.Profiler;
import dev.tandem.server.store.ProfileRecord;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.HashSet;

/**
 * {@code tandem calibrate}: measures a workload suite on this machine's GPU, alone and in pairs, within a time
 * budget, and writes what it measured as {@code profiles.csv} (Lucid's profile format: {@code serve --known-profiles},
 * {@code simulate --profiles}) and {@code pairs.csv} (Lucid's pair format: {@code simulate --truth} and
 * {@code --train}; a pair that ran out of memory is written with both speeds 0, read back as infeasible).
 *
 * <p>Every measurement is appended to its file as soon as it is done, and a run that finds the files skips what they
 * already hold: an interrupted calibration resumes where it stopped. Solo runs come first (pairs need their speeds);
 * then, while the budget lasts, the pair the compatibility model (kNN, trained on the bundled pairs and on the pairs
 * measured so far) is least sure about. At the end it reports the model's held-out error on the measured pairs, one
 * workload left out at a time.
 */
public final class Calibrator {
    /**
     * @param suiteCommand  the suite's command before its options, e.g. [/usr/bin/python3, workloads/train.py]
     * @param measureSeconds how long each measurement runs (both jobs of a pair at once)
     * @param budgetSeconds  the whole calibration's time, start-up of each run included
     */
    public record Settings(List<SuiteWorkload> workloads, List<String> suiteCommand, double measureSeconds, double budgetSeconds, Path out) {
        public Settings {
            if (workloads.isEmpty()) throw new IllegalArgumentException("--workloads: name at least one");
            if (!(measureSeconds >= 2)) throw new IllegalArgumentException("--measure must be at least 2s, got " + measureSeconds + " s");
            if (!(budgetSeconds > 0)) throw new IllegalArgumentException("--budget must be positive");
            workloads = List.copyOf(workloads);
            suiteCommand = List.copyOf(suiteCommand);
        }
    }

    /** What a calibration did: solo profiles and pairs measured now and before, pairs left out for lack of time. */
    public record Outcome(int solosMeasured, int pairsMeasured, int solosKnown, int pairsKnown, List<String> pairsLeft, Double heldOutError) {}

    static final List<String> PROFILE_HEADER = List.of("model", "dataset", "batchsize", "amp", "speed", "gpu_util", "gmem_util", "gmem",
            "sm_activity", "sm_occupancy");
    static final List<String> PAIR_HEADER = List.of("", "model1", "dataset1", "gpu_num1", "batchsize1", "amp1", "speed1", "model2", "dataset2",
            "gpu_num2", "batchsize2", "amp2", "speed2", "gpu_util", "gmem_util", "gmem");

    private final Settings s;
    private final GpuDevice gpu;
    private final GpuMonitor monitor;
    private final PrintStream out;
    private final Path profilesFile;
    private final Path pairsFile;
    private final Map<WorkloadSignature, JobProfile> profiles = new LinkedHashMap<>();
    private final List<MeasuredPair> pairs = new ArrayList<>();
    private final List<PairObservation> bundled;
    private final long start = System.currentTimeMillis();
    /** Seconds a measurement took beyond its window (process start-up, the last step); refined as runs finish. */
    private double overheadSeconds = 15;

    public Calibrator(Settings s, GpuDevice gpu, GpuMonitor monitor, PrintStream out) {
        this.s = s;
        this.gpu = gpu;
        this.monitor = monitor;
        this.out = out;
        this.profilesFile = s.out().resolve("profiles.csv");
        this.pairsFile = s.out().resolve("pairs.csv");
        ProfileStore lucid = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0));
        this.bundled = TrainingPairs.load(DataSource.LUCID_PAIRS, lucid, "v100");
    }

    public Outcome run() throws IOException, InterruptedException {
        Files.createDirectories(s.out());
        if (Files.exists(profilesFile)) for (JobProfile p : ProfileReader.read(DataSource.of(profilesFile), 0)) profiles.put(p.signature(), p);
        if (Files.exists(pairsFile)) pairs.addAll(LucidPairReader.read(DataSource.of(pairsFile), true));
        int solosKnown = (int) s.workloads().stream().filter(w -> profiles.containsKey(w.signature())).count();
        int pairsKnown = pairs.size();
        out.printf(Locale.ROOT, "calibrating %d workload(s) on GPU %d (%s, %d MiB) for at most %s, %s per measurement%s%n", s.workloads().size(),
                gpu.index(), gpu.name(), gpu.memoryMiB(), minutes(s.budgetSeconds()), minutes(s.measureSeconds()),
                solosKnown + pairsKnown > 0 ? "; resuming: " + solosKnown + " solo profile(s) and " + pairsKnown + " pair(s) already measured in " + s.out() : "");

        int solos = 0, measured = 0;
        List<SuiteWorkload> todo = s.workloads().stream().filter(w -> !profiles.containsKey(w.signature())).toList();
        for (SuiteWorkload w : todo) {
            if (!timeFor(1)) break;
            progress("alone " + w.label(), solos + 1, todo.size());
            Measurement.Result r = Measurement.run(List.of(w), s.suiteCommand(), gpu, monitor, s.measureSeconds(), s.out().resolve("runs"),
                    "solo-" + w.label().replace(':', '-'));
            learnOverhead(r);
            Measurement.Job j = r.jobs().getFirst();
            if (!j.usable()) {
                out.println("  " + w.label() + ": " + j.problem() + "; left out. Its last output:\n    " + j.lastOutput().replace("\n", "\n    "));
                continue;
            }
            ProfileRecord rec = Profiler.profile(w.signature(), 0, 1, r.readings(), gpu.name(), j.speed(), r.endedAt()).orElse(null);
            if (rec == null) {
                out.println("  " + w.label() + ": too few GPU readings in " + minutes(s.measureSeconds()) + "; left out (measure longer)");
                continue;
            }
            profiles.put(w.signature(), rec.profile());
            appendProfile(rec.profile());
            solos++;
            out.printf(Locale.ROOT, "  %.2f it/s, GPU util %.0f %%, memory util %.0f %%, peak %.0f MiB%n", j.speed(), rec.profile().gpuUtil(),
                    rec.profile().gmemUtil(), rec.profile().gmemMiB());
        }

        List<SuiteWorkload[]> candidates = pairCandidates();
        int total = candidates.size();
        while (!candidates.isEmpty() && timeFor(1)) {
            SuiteWorkload[] next = leastCertain(candidates);
            candidates.remove(next);
            progress("pair " + next[0].label() + " + " + next[1].label(), measured + 1, total);
            Measurement.Result r = Measurement.run(List.of(next[0], next[1]), s.suiteCommand(), gpu, monitor, s.measureSeconds(), s.out().resolve("runs"),
                    "pair-" + next[0].label().replace(':', '-') + "+" + next[1].label().replace(':', '-'));
            learnOverhead(r);
            Measurement.Job a = r.jobs().get(0), b = r.jobs().get(1);
            double peak = r.readings().smi().stream().mapToDouble(GpuSample::memoryUsedMiB).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
            MeasuredPair p;
            if (a.oom() || b.oom()) {
                p = new MeasuredPair(next[0].signature(), next[1].signature(), 1, 0, 0, peak, true);
                out.println("  out of memory together: written as infeasible (speeds 0)");
            } else if (!a.usable() || !b.usable()) {
                Measurement.Job bad = a.usable() ? b : a;
                out.println("  " + bad.workload().label() + ": " + bad.problem() + "; pair left out. Its last output:\n    " + bad.lastOutput().replace("\n", "\n    "));
                continue;
            } else {
                double sa = Math.min(2, a.speed() / profiles.get(next[0].signature()).soloSpeed());
                double sb = Math.min(2, b.speed() / profiles.get(next[1].signature()).soloSpeed());
                p = new MeasuredPair(next[0].signature(), next[1].signature(), 1, sa, sb, peak, false);
                out.printf(Locale.ROOT, "  speeds relative to alone %.2f and %.2f (%.2fx together), peak %.0f MiB%n", sa, sb, sa + sb, peak);
            }
            pairs.add(p);
            appendPair(p, r);
            measured++;
        }
        List<String> left = new ArrayList<>();
        for (SuiteWorkload[] c : candidates) left.add(c[0].label() + " + " + c[1].label());
        for (SuiteWorkload w : s.workloads()) if (!profiles.containsKey(w.signature())) left.add(w.label() + " alone");
        Double error = heldOutError();
        out.printf(Locale.ROOT, "done in %s: %d solo profile(s) and %d pair(s) measured now (%d and %d before); written to %s and %s%n",
                minutes((System.currentTimeMillis() - start) / 1000.0), solos, measured, solosKnown, pairsKnown, profilesFile, pairsFile);
        if (!left.isEmpty()) out.println("not measured for lack of time: " + String.join(", ", left) + " (run again with a larger --budget to add them)");
        out.println(error == null ? "held-out error: too few measured pairs (needs pairs of at least two workloads)"
                : String.format(Locale.ROOT, "held-out error of the compatibility model on the measured pairs (one workload left out at a time): "
                + "%.3f mean absolute error of a job's speed", error));
        return new Outcome(solos, measured, solosKnown, pairsKnown, left, error);
    }

    /** Every unordered pair of profiled workloads (a workload with itself too) not measured yet. */
    private List<SuiteWorkload[]> pairCandidates() {
        Set<String> done = new HashSet<>();
        for (MeasuredPair p : pairs) {
            done.add(p.a().label() + "|" + p.b().label());
            done.add(p.b().label() + "|" + p.a().label());
        }
        List<SuiteWorkload> ok = s.workloads().stream().filter(w -> profiles.containsKey(w.signature())).toList();
        List<SuiteWorkload[]> out = new ArrayList<>();
        for (int i = 0; i < ok.size(); i++) {
            for (int j = i; j < ok.size(); j++) {
                if (!done.contains(ok.get(i).signature().label() + "|" + ok.get(j).signature().label())) out.add(new SuiteWorkload[] {ok.get(i), ok.get(j)});
            }
        }
        return out;
    }

    /** The candidate whose speeds the model, trained on the bundled pairs and those measured here, is least sure about. */
    private SuiteWorkload[] leastCertain(List<SuiteWorkload[]> candidates) {
        CompatibilityModel model = KernelRegressionModel.fit(training(observations()));
        SuiteWorkload[] best = candidates.getFirst();
        double most = Double.NEGATIVE_INFINITY;
        for (SuiteWorkload[] c : candidates) {
            PairPrediction p = model.predict(profiles.get(c[0].signature()), profiles.get(c[1].signature()));
            double u = Double.isNaN(p.uncertainty()) ? Double.POSITIVE_INFINITY : p.uncertainty();
            if (u > most) {
                most = u;
                best = c;
            }
        }
        return best;
    }

    /** The measured pairs with both profiles known, as the model learns them (infeasible pairs teach no speeds). */
    private List<PairObservation> observations() {
        List<PairObservation> out = new ArrayList<>();
        for (MeasuredPair p : pairs) {
            JobProfile a = profiles.get(p.a()), b = profiles.get(p.b());
            if (a != null && b != null && !p.infeasible()) out.add(new PairObservation(a, b, p.gpus(), p.speedA(), p.speedB()));
        }
        return out;
    }

    private List<PairObservation> training(List<PairObservation> measured) {
        List<PairObservation> all = new ArrayList<>(bundled);
        all.addAll(measured);
        return all;
    }

    /** Mean absolute error of a job's speed, each measured workload's pairs predicted by a model trained without them. */
    private Double heldOutError() {
        List<PairObservation> measured = observations();
        Set<WorkloadSignature> models = new HashSet<>();
        for (PairObservation o : measured) {
            models.add(o.a().signature());
            models.add(o.b().signature());
        }
        if (models.size() < 2) return null;
        LeaveOneModelOut.Result r = LeaveOneModelOut.evaluate(measured, rest -> KernelRegressionModel.fit(training(rest)));
        return Double.isNaN(r.maePerJob()) ? null : r.maePerJob();
    }

    private boolean timeFor(int measurements) {
        double left = s.budgetSeconds() - (System.currentTimeMillis() - start) / 1000.0;
        return left >= measurements * (s.measureSeconds() + overheadSeconds);
    }

    private void learnOverhead(Measurement.Result r) {
        double took = (r.endedAt() - r.startedAt()) / 1000.0;
        overheadSeconds = Math.max(1, took - s.measureSeconds());
    }

    private void progress(String what, int i, int n) {
        double used = (System.currentTimeMillis() - start) / 1000.0;
        out.printf(Locale.ROOT, "[%d/%d] %s (%s used, %s of the budget left)%n", i, n, what, minutes(used), minutes(Math.max(0, s.budgetSeconds() - used)));
    }

    private void appendProfile(JobProfile p) throws IOException {
        append(profilesFile, PROFILE_HEADER, List.of(p.signature().model(), p.signature().dataset(), String.valueOf(p.signature().batchSize()),
                p.signature().amp() ? "1" : "0", num(p.soloSpeed()), num(p.gpuUtil()), num(p.gmemUtil()), num(p.gmemMiB()), num(p.smActivity()),
                num(p.smOccupancy())));
    }

    private void appendPair(MeasuredPair p, Measurement.Result r) throws IOException {
        double util = mean(r, GpuSample::utilGpu), memUtil = mean(r, GpuSample::utilMemory);
        append(pairsFile, PAIR_HEADER, List.of(String.valueOf(pairs.size() - 1), p.a().model(), p.a().dataset(), "1", String.valueOf(p.a().batchSize()),
                p.a().amp() ? "1" : "0", num(p.speedA()), p.b().model(), p.b().dataset(), "1", String.valueOf(p.b().batchSize()), p.b().amp() ? "1" : "0",
                num(p.speedB()), num(util), num(memUtil), num(p.pairMemoryMiB())));
    }

    private static double mean(Measurement.Result r, java.util.function.ToDoubleFunction<GpuSample> f) {
        return r.readings().smi().stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
    }

    /** Appends one record (and the header to a new file), flushed at once: what is written survives an interruption. */
    private static void append(Path file, List<String> header, List<String> record) throws IOException {
        boolean fresh = !Files.exists(file) || Files.size(file) == 0;
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
             CSVPrinter p = new CSVPrinter(w, Csv.WRITE_FORMAT)) {
            if (fresh) p.printRecord(header);
            p.printRecord(record);
        }
    }

    private static String num(double v) { return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v); }

    static String minutes(double seconds) {
        long s = Math.round(seconds);
        return s >= 60 ? s / 60 + " min " + s % 60 + " s" : s + " s";
    }
}
