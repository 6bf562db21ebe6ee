package dev.tandem.sim.scenario;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.CompatibilityModels;
import dev.tandem.core.compat.OnlineCorrectedModel;
import dev.tandem.core.compat.PairObservation;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.policies.PolicyCatalog;
import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.sim.bound.MakespanLowerBound;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import dev.tandem.data.TrainingPairs;
import dev.tandem.data.GavelThroughputReader;
import dev.tandem.data.LucidPairReader;
import dev.tandem.data.MeasuredPair;
import dev.tandem.data.ProfileReader;
import dev.tandem.sim.engine.ProgressListener;
import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.engine.Recording;
import dev.tandem.sim.engine.Simulator;
import dev.tandem.data.truth.ContentionFallback;
import dev.tandem.data.truth.InterferenceTruth;
import dev.tandem.data.truth.MeasuredTruth;
import dev.tandem.sim.workload.WorkloadCsv;
import dev.tandem.sim.workload.WorkloadGenerator;
import dev.tandem.sim.trace.ProfileAssigner;
import dev.tandem.sim.trace.TraceJobs;
import dev.tandem.sim.trace.TraceReadResult;
import dev.tandem.sim.trace.TraceRecord;
import dev.tandem.sim.trace.TraceSpec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A loaded, ready-to-run simulation set-up: cluster, profiles, ground truth, the oracle's training data, jobs. */
public final class Scenario {
    private final ScenarioSpec spec;
    private final ProfileStore profiles;
    private final InterferenceTruth truth;
    private final List<PairObservation> training;
    private final List<Job> jobs;
    private final String mode;
    private final Map<String, Object> notes;
    private CompatibilityModel base;

    private Scenario(ScenarioSpec spec, ProfileStore profiles, InterferenceTruth truth, List<PairObservation> training, List<Job> jobs,
                     String mode, Map<String, Object> notes) {
        this.notes = notes;
        this.spec = spec;
        this.profiles = profiles;
        this.truth = truth;
        this.training = training;
        this.jobs = jobs;
        this.mode = mode;
    }

    public static Scenario load(ScenarioSpec spec) {
        DataSource truthSrc = DataSource.of(spec.truth());
        long gpuMem = spec.cluster().maxGpuMemoryMiB();
        ProfileStore profiles;
        InterferenceTruth truth;
        List<Job> jobs;
        String mode;
        Map<String, Object> notes = new LinkedHashMap<>();
        if (truthSrc.isJson()) {
            GavelThroughputReader.GavelData g = GavelThroughputReader.read(truthSrc, spec.gavelGpu());
            profiles = new ProfileStore(g.profiles());
            truth = new MeasuredTruth("gavel:" + spec.gavelGpu(), g.pairs(), ContentionFallback.standard());
            List<JobProfile> drawn = spec.workload().mix().select(g.profiles(), g.pairs());
            jobs = spec.trace() != null && spec.trace().isWorkloadFile() ? workloadFile(spec, profiles)
                    : spec.trace() != null ? traceJobs(spec, ProfileAssigner.forGavel(g, drawn, spec.workload().seed()), notes)
                    : WorkloadGenerator.generate(spec.workload(), drawn, (p, size) -> g.scales().getOrDefault(p.signature(), List.of()).contains(size));
            mode = "gavel";
            notes.put("profiles_drawn_from", drawn.size() + " of " + g.profiles().size());
        } else {
            List<JobProfile> list = ProfileReader.read(DataSource.of(spec.profiles()), gpuMem);
            profiles = new ProfileStore(list);
            List<MeasuredPair> pairs = checkKnown(LucidPairReader.read(truthSrc, true), profiles, truthSrc);
            truth = new MeasuredTruth("pairs:" + spec.truth(), pairs, ContentionFallback.standard());
            List<JobProfile> drawn = spec.workload().mix().select(list, pairs);
            jobs = spec.trace() != null && spec.trace().isWorkloadFile() ? workloadFile(spec, profiles)
                    : spec.trace() != null ? traceJobs(spec, ProfileAssigner.seeded(drawn, spec.workload().seed()), notes)
                    : WorkloadGenerator.generate(spec.workload(), drawn, (p, size) -> true);
            mode = "profiles";
            notes.put("profiles_drawn_from", drawn.size() + " of " + list.size());
        }
        List<PairObservation> training = withoutModels(TrainingPairs.load(DataSource.of(spec.train()), profiles, spec.gavelGpu()), spec.trainWithout(),
                profiles, spec.train());
        return new Scenario(spec, profiles, truth, training, jobs, mode, notes);
    }

    /** Jobs listed in tandem's own workload file, exactly as given (the first {@code limit} of them, if set). */
    private static List<Job> workloadFile(ScenarioSpec spec, ProfileStore profiles) {
        List<Job> jobs = WorkloadCsv.read(DataSource.of(spec.trace().source()), profiles);
        return spec.trace().limit() > 0 && jobs.size() > spec.trace().limit() ? List.copyOf(jobs.subList(0, (int) spec.trace().limit())) : jobs;
    }

    /** Jobs from the trace, with profiles assigned by the user's mapping or the seeded rule; too-wide gangs are dropped. */
    private static List<Job> traceJobs(ScenarioSpec spec, ProfileAssigner assigner, Map<String, Object> notes) {
        TraceSpec t = spec.trace();
        if (t.mapping() != null) assigner = assigner.withMapping(DataSource.of(t.mapping()));
        TraceReadResult read = t.read();
        int max = spec.cluster().gpuCount();
        List<TraceRecord> fit = read.records().stream().filter(r -> r.gpus() <= max).toList();
        List<Job> jobs = TraceJobs.toJobs(fit, assigner, t.limit() > 0 ? TraceJobs.Options.first(t.limit()) : TraceJobs.Options.ALL);
        if (jobs.isEmpty()) throw new DataFormatException(t.source(), 0, null, "no usable jobs in trace");
        notes.put("trace_rows_skipped_bad", read.skipped());
        notes.put("trace_rows_ignored", read.ignored());
        notes.put("trace_jobs_wider_than_cluster", read.records().size() - fit.size());
        if (!read.firstProblems().isEmpty()) notes.put("trace_first_problems", read.firstProblems());
        return jobs;
    }

    private static List<MeasuredPair> checkKnown(List<MeasuredPair> pairs, ProfileStore profiles, DataSource src) {
        for (MeasuredPair p : pairs) {
            for (var sig : List.of(p.a(), p.b())) {
                if (profiles.find(sig).isEmpty()) throw new DataFormatException(src.name(), 0, null, "pair uses workload " + sig.label() + ", which has no solo profile");
            }
        }
        return pairs;
    }

    /**
     * The training pairs in which neither job is one of {@code models}. Each name must be a model of the profiles,
     * and some pairs must remain.
     */
    static List<PairObservation> withoutModels(List<PairObservation> training, java.util.Set<String> models, ProfileStore profiles, String source) {
        if (models.isEmpty()) return training;
        java.util.Set<String> known = new java.util.TreeSet<>();
        for (JobProfile p : profiles.all()) known.add(p.signature().model());
        for (String m : models) {
            if (!known.contains(m)) throw new IllegalArgumentException("--train-without: no model '" + m + "' in the profiles; known: " + String.join(", ", known));
        }
        List<PairObservation> kept = training.stream()
                .filter(o -> !models.contains(o.a().signature().model()) && !models.contains(o.b().signature().model())).toList();
        if (kept.isEmpty()) throw new DataFormatException(source, 0, null, "no training pairs left without models " + models);
        return kept;
    }

    /**
     * A fresh oracle: each policy run gets its own online layer, so what one run learns does not leak into
     * another. The fitted base model is immutable and thread-safe, so it is fitted once and shared.
     */
    public CompatibilityModel newOracle() {
        CompatibilityModel base = baseModel();
        return spec.online() ? new OnlineCorrectedModel(base) : base;
    }

    private synchronized CompatibilityModel baseModel() {
        if (base == null) base = CompatibilityModels.fit(spec.model(), training, mode.equals("gavel"));
        return base;
    }

    public SimulationResult run(String policy, ProgressListener progress) {
        return run(policy, progress, Recording.DEFAULT);
    }

    /** @param recording what to keep beyond the metrics (decisions with reasons, timeline, co-located stretches) */
    public SimulationResult run(String policy, ProgressListener progress, Recording recording) {
        return run(jobs, policy, progress, recording);
    }

    /** As {@link #run(String, ProgressListener, Recording)}, on other jobs in this scenario's world (its jobs as another system carries them). */
    public SimulationResult run(List<Job> jobs, String policy, ProgressListener progress, Recording recording) {
        Simulator sim = new Simulator(spec.sim(), spec.cluster(), profiles, truth, recording);
        return sim.run(jobs, PolicyCatalog.create(policy, spec.tandem()), newOracle(), progress);
    }

    public MakespanLowerBound.Bound lowerBound() {
        return MakespanLowerBound.compute(jobs, profiles, truth, spec.cluster());
    }

    public List<Job> jobs() { return jobs; }
    public ProfileStore profiles() { return profiles; }
    public InterferenceTruth truth() { return truth; }
    public Cluster cluster() { return spec.cluster(); }
    public ScenarioSpec spec() { return spec; }
    public String mode() { return mode; }
    public List<PairObservation> training() { return training; }

    /**
     * Everything the run was configured with, for the JSON output: data sources, model, cluster, workload or trace,
     * simulator settings and tandem's tunables, so that a result can be reproduced from its file alone.
     */
    public Map<String, Object> configuration() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("profiles", spec.profiles());
        m.put("truth", spec.truth());
        m.put("train", spec.train());
        m.put("train_without", new java.util.TreeSet<>(spec.trainWithout()));
        m.put("gavel_gpu", spec.gavelGpu());
        m.put("model", spec.model());
        m.put("online", spec.online());
        m.put("cluster", spec.cluster().toString());
        m.put("gangs_span_nodes", spec.cluster().gangsSpanNodes());
        Map<String, Long> types = new java.util.TreeMap<>(); // GPU type name -> memory MiB
        for (var node : spec.cluster().nodes()) for (var g : node.gpus()) types.putIfAbsent(g.type().name(), g.type().memoryMiB());
        m.put("gpu_types_mib", types);
        Map<String, Object> w = new LinkedHashMap<>();
        if (spec.trace() != null) {
            w.put("trace_format", spec.trace().format());
            w.put("trace", spec.trace().source());
            w.put("mapping", spec.trace().mapping());
            w.put("limit", spec.trace().limit());
            w.put("bad_rows", spec.trace().badRows().toString());
        } else {
            w.put("jobs", spec.workload().jobs());
            w.put("arrival", spec.workload().arrival().toString());
            w.put("sizes", spec.workload().sizes().toString());
            w.put("duration_s", List.of(spec.workload().minDurationS(), spec.workload().maxDurationS()));
        }
        w.put("seed", spec.workload().seed());
        w.put("mix", spec.workload().mix().toString());
        m.put("workload", w);
        Map<String, Object> sim = new LinkedHashMap<>();
        sim.put("round_s", spec.sim().roundSeconds());
        sim.put("observe_after_s", spec.sim().observeAfterSeconds());
        sim.put("oom_detect_s", spec.sim().oomDetectSeconds());
        sim.put("restart_overhead_s", spec.sim().restartOverheadSeconds());
        sim.put("memory_margin_mib", spec.sim().memoryRule().perJobMarginMiB());
        sim.put("knowledge", spec.sim().knowledge().toString());
        sim.put("queue_rules", spec.sim().queueRules().toString());
        m.put("simulator", sim);
        TandemPolicy.Config t = spec.tandem();
        Map<String, Object> tandem = new LinkedHashMap<>();
        tandem.put("objective", t.objective().toString());
        tandem.put("minSpeed", t.minSpeed());
        tandem.put("minGain", t.minGain());
        tandem.put("uncertaintyWeight", t.uncertaintyWeight());
        tandem.put("window", t.window());
        tandem.put("starvationSeconds", t.starvationSeconds());
        tandem.put("urgencyWeight", t.urgencyWeight());
        m.put("tandem", tandem);
        return m;
    }

    /** The workload description the JSON output carries. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", jobs.size());
        if (spec.trace() != null) {
            m.put(spec.trace().isWorkloadFile() ? "workload_file" : "trace", spec.trace().isWorkloadFile() ? spec.trace().source()
                    : spec.trace().format() + ":" + spec.trace().source());
            if (spec.trace().limit() > 0) m.put("limit", spec.trace().limit());
            if (!spec.trace().isWorkloadFile()) {
                m.put("profile_seed", spec.workload().seed()); // the seeded profile assignment
                m.put("mix", spec.workload().mix().toString());
            }
        } else { // the generator's settings describe only generated jobs
            m.put("arrival", spec.workload().arrival().toString());
            m.put("sizes", spec.workload().sizes().toString());
            m.put("duration_s", List.of(spec.workload().minDurationS(), spec.workload().maxDurationS()));
            m.put("seed", spec.workload().seed());
            m.put("mix", spec.workload().mix().toString());
        }
        m.putAll(notes);
        m.put("cluster", spec.cluster().toString());
        m.put("gpus", spec.cluster().gpuCount());
        m.put("gpu_type", spec.cluster().gpu(0).type().name());
        m.put("gpu_memory_mib", spec.cluster().maxGpuMemoryMiB());
        m.put("mode", mode);
        m.put("knowledge", spec.sim().knowledge().toString());
        m.put("queue_rules", spec.sim().queueRules().toString());
        m.put("profiles", mode.equals("gavel") ? spec.truth() + "#" + spec.gavelGpu() : spec.profiles());
        m.put("truth", truth.name());
        m.put("train", spec.train());
        if (!spec.trainWithout().isEmpty()) m.put("train_without", new java.util.TreeSet<>(spec.trainWithout()));
        m.put("oracle", newOracle().name());
        m.put("total_solo_gpu_seconds", jobs.stream().mapToDouble(j -> j.gpus() * j.totalIterations() / profiles.get(j.signature()).soloSpeed()).sum());
        return m;
    }
}
