package dev.tandem.server.exec.simulated;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.DataSource;
import dev.tandem.data.LucidPairReader;
import dev.tandem.data.ProfileReader;
import dev.tandem.data.truth.ContentionFallback;
import dev.tandem.data.truth.InterferenceTruth;
import dev.tandem.data.truth.MeasuredTruth;
import dev.tandem.server.exec.ExecEvent;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.exec.JobCannotRun;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.Launch;
import dev.tandem.server.exec.Launched;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.gpu.GpuReadings;
import dev.tandem.server.gpu.GpuSample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * GPUs simulated from the same measured data as {@code tandem simulate}, for trying the whole daemon (API, store,
 * scheduler, profiling, pairing) without a GPU. A run is no process: it advances at its workload's measured solo
 * speed (Lucid's profiles, by the job's signature) times the measured co-location speed while it shares a GPU
 * (Lucid's pairs; pairs nobody measured from the simulator's contention fallback), {@code timeScale} simulated
 * seconds per wall second. Progress is reported as a training script's would be; a profiling run's GPU readings
 * are the profile's utilisation and memory; a pair that does not fit in memory by the simulator's rule
 * ({@link dev.tandem.data.truth.TruthPair#overflows}, with the profiles' peaks) crashes the job that joined with
 * CUDA's out-of-memory message after {@link SimulatedSettings#oomDetectSeconds()}. A run stopped by the scheduler keeps
 * its progress (as a training script that checkpoints on SIGTERM), one that crashed loses what it did since it
 * resumed; a resumed run first repeats {@link SimulatedSettings#restartOverheadSeconds()} of solo work. These are the
 * simulator's rules ({@code tandem simulate}), so that the daemon on simulated GPUs and the simulator agree job by job
 * when the daemon runs in virtual time ({@link #nextEventMillis}). Runs do not survive the daemon (nothing to
 * re-adopt): after a restart they are requeued.
 */
public final class SimulatedExecutor implements Executor {
    /**
     * How often a run's progress is written to its log: every tenth of the job, and at least once a simulated minute
     * (as a training script prints every so many steps), so that a log followed live moves.
     */
    private static final double LOG_EVERY = 0.1;
    private static final double LOG_AT_LEAST_EVERY_S = 60;
    /** A job that names no iteration count runs this many simulated seconds at its solo speed. */
    static final double DEFAULT_SOLO_SECONDS = 1800;
    /**
     * The variable of a job's environment that sets how many iterations its simulated runs do in all, whatever it
     * declares: a job of unknown length ({@code tandem submit} without {@code --iterations}) or one that declares its
     * length wrongly, as {@code tandem simulate --knowledge none} and {@code noisy:SIGMA} have them.
     */
    public static final String LENGTH_VARIABLE = "SIMULATED_ITERATIONS";

    private final Path stateDir;
    private final Cluster cluster;
    private final double timeScale;
    private final SimulatedSettings settings;
    /** Where each job's next run resumes (iterations of work, less any restart overhead it has yet to repeat). */
    private final Map<Long, Double> checkpoints = new java.util.HashMap<>();
    private final ProfileStore profiles;
    private final InterferenceTruth truth;
    private final LongSupplier clock;
    private final Map<Long, SimRun> runs = new LinkedHashMap<>();
    /** Where the simulated GPUs' readings go (the daemon's GPU monitor), and when they were last sent. */
    private volatile java.util.function.Consumer<GpuSample> readings = s -> {};
    private long lastReadings = Long.MIN_VALUE;
    private final List<ExecEvent> pending = new ArrayList<>();
    /** Runs that ended recently, whose profiling readings the scheduler may still ask for (a job shorter than the window). */
    private final Map<Long, SimRun> ended = new LinkedHashMap<>(16, 0.75f, false) {
        @Override protected boolean removeEldestEntry(Map.Entry<Long, SimRun> eldest) { return size() > 1000; }
    };

    private static final class SimRun {
        final Launch launch;
        final JobProfile profile;
        final double total;
        final long startedAt;
        final Set<Integer> gpus = new HashSet<>();
        /** Where it resumed from; a crash falls back here. */
        final double resumedFrom;
        /** Iterations done, counting from the job's start; below the checkpoint while it repeats its restart overhead. */
        double done;
        long lastAt;
        double nextLog;
        double sinceLog;
        boolean stopping;
        /** Simulated seconds until an out-of-memory crash; infinite when the run fits. */
        double oomIn = Double.POSITIVE_INFINITY;

        SimRun(Launch launch, JobProfile profile, double total, double resumedFrom, long now) {
            this.launch = launch;
            this.profile = profile;
            this.total = total;
            this.resumedFrom = resumedFrom;
            this.done = resumedFrom;
            this.startedAt = now;
            this.lastAt = now;
            launch.gpus().forEach(g -> gpus.add(g.index()));
        }
    }

    /** The bundled Lucid data (measured on RTX 3090 GPUs), as {@code tandem simulate} uses by default. */
    public static SimulatedExecutor withBundledData(Path stateDir, SimulatedSettings settings) {
        return withBundledData(stateDir, settings, System::currentTimeMillis);
    }

    /** As {@link #withBundledData(Path, SimulatedSettings)}, on the daemon's clock (wall or virtual). */
    public static SimulatedExecutor withBundledData(Path stateDir, SimulatedSettings settings, LongSupplier clock) {
        ProfileStore profiles = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0));
        InterferenceTruth truth = new MeasuredTruth("lucid", LucidPairReader.read(DataSource.LUCID_PAIRS, true), ContentionFallback.standard());
        return new SimulatedExecutor(stateDir, settings, profiles, truth, clock);
    }

    SimulatedExecutor(Path stateDir, SimulatedSettings settings, ProfileStore profiles, InterferenceTruth truth, LongSupplier clock) {
        this.stateDir = stateDir;
        this.settings = settings;
        this.cluster = Cluster.parse(settings.cluster());
        this.timeScale = settings.timeScale();
        this.profiles = profiles;
        this.truth = truth;
        this.clock = clock;
    }

    @Override public List<GpuDevice> discoverGpus() {
        List<GpuDevice> out = new ArrayList<>();
        for (Gpu g : cluster.gpus()) {
            out.add(new GpuDevice(g.id(), g.node(), "sim:" + g.node() + ":" + g.index(), "simulated " + g.type().name(), g.type().memoryMiB()));
        }
        return out;
    }

    /** A workload without a measured profile: its speeds are not known, so the simulated GPUs cannot run it. */
    @Override public Optional<String> cannotRun(WorkloadSignature workload) {
        if (profiles.find(workload).isPresent()) return Optional.empty();
        return Optional.of("the simulated executor has no measured profile of workload " + workload.label()
                + "; submit with --model/--dataset/--batch-size/--amp of a bundled one, e.g. " + nearest(workload)
                + " (tandem compat matrix lists the models)");
    }

    /**
     * The bundled workloads nearest to one asked for, so that a near miss (another batch size, {@code CIFAR10} for
     * {@code CIFAR-10}) shows the right one: those of the same model first (its name's case ignored), then of the same
     * dataset, then the rest.
     */
    private List<String> nearest(WorkloadSignature asked) {
        String model = asked.model().toLowerCase(java.util.Locale.ROOT), dataset = asked.dataset().toLowerCase(java.util.Locale.ROOT);
        java.util.function.ToIntFunction<WorkloadSignature> distance = w ->
                w.model().toLowerCase(java.util.Locale.ROOT).equals(model) ? 0 : w.dataset().toLowerCase(java.util.Locale.ROOT).equals(dataset) ? 1 : 2;
        return profiles.all().stream().map(JobProfile::signature).sorted(java.util.Comparator.comparingInt(distance))
                .limit(SUGGESTIONS).map(WorkloadSignature::label).toList();
    }

    private static final int SUGGESTIONS = 6;

    @Override public Launched start(Launch l) {
        if (runs.containsKey(l.jobId())) throw new ExecException("job " + l.jobId() + " is already running");
        JobProfile p = profiles.find(l.signature()).orElseThrow(() -> new JobCannotRun(cannotRun(l.signature()).orElseThrow()));
        long now = clock.getAsLong();
        double total = length(l, p);
        Double checkpoint = checkpoints.get(l.jobId());
        // a resumed run repeats its restart overhead first, as the simulator charges it
        double resumeAt = checkpoint == null ? 0 : checkpoint - settings.restartOverheadSeconds() * p.soloSpeed();
        SimRun run = new SimRun(l, p, total, resumeAt, now);
        ended.remove(l.jobId());
        long capacity = l.gpus().stream().mapToLong(GpuDevice::memoryMiB).min().orElse(0);
        for (SimRun other : partners(run)) {
            // the simulator's rule, with the profiles' peaks for the jobs' memory
            if (truth.pair(p, other.profile, l.gpus().size()).overflows(capacity, p.gmemMiB(), other.profile.gmemMiB())) {
                run.oomIn = settings.oomDetectSeconds(); // the newcomer's allocation fails after a while, as a real one would
            }
        }
        runs.put(l.jobId(), run);
        pending.add(new ExecEvent.Progress(l.jobId(), reported(run), now)); // where it starts, as a script prints when it resumes
        log(l, String.format(Locale.ROOT, "[tandem] attempt %d of job %d on simulated GPU(s) %s at %s: %s, %.0f iterations at %.2f it/s solo%n",
                l.attempt(), l.jobId(), run.gpus, Instant.ofEpochMilli(now), p.signature().label(), total, p.soloSpeed()));
        return new Launched(-1, now);
    }

    /**
     * The iterations the job does in all: {@link #LENGTH_VARIABLE} of its environment, else what it declares, else the
     * default. A job the API stored before (submitted to a daemon with another executor) may set it to something else:
     * its start fails with why.
     */
    private static double length(Launch l, JobProfile p) {
        String set = l.env().get(LENGTH_VARIABLE);
        if (set == null) return l.iterations() != null ? l.iterations() : Math.ceil(p.soloSpeed() * DEFAULT_SOLO_SECONDS);
        long n = iterations(set);
        if (n > 0) return n;
        throw new JobCannotRun("environment variable " + LENGTH_VARIABLE + " of job " + l.jobId() + ": " + notALength(set));
    }

    /** The iterations a value of {@link #LENGTH_VARIABLE} sets, or -1 where it is not a whole number above 0. */
    private static long iterations(String value) {
        try {
            long n = Long.parseLong(value.strip());
            return n > 0 ? n : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String notALength(String value) { return "a whole number of iterations above 0, got '" + value + "'"; }

    @Override public Optional<String> cannotUse(String variable, String value) {
        return variable.equals(LENGTH_VARIABLE) && iterations(value) < 0 ? Optional.of(notALength(value)) : Optional.empty();
    }

    private List<SimRun> partners(SimRun run) {
        List<SimRun> out = new ArrayList<>();
        for (SimRun r : runs.values()) if (r != run && intersects(r.gpus, run.gpus)) out.add(r);
        return out;
    }

    private static boolean intersects(Set<Integer> a, Set<Integer> b) {
        for (int g : a) if (b.contains(g)) return true;
        return false;
    }

    /** The run's speed relative to solo now: the measured pair speed next to a partner, 1 alone. */
    private double factor(SimRun run) {
        double f = 1;
        for (SimRun other : partners(run)) f = Math.min(f, truth.pair(run.profile, other.profile, run.gpus.size()).speedA());
        return f;
    }

    @Override public List<ExecEvent> poll() {
        long now = clock.getAsLong();
        List<ExecEvent> events = new ArrayList<>(pending);
        pending.clear();
        // speeds are taken before anyone advances, so that a pair ending this poll does not speed up its partner's past
        Map<SimRun, Double> factors = new LinkedHashMap<>();
        for (SimRun r : runs.values()) factors.put(r, factor(r));
        for (var it = runs.values().iterator(); it.hasNext(); ) {
            SimRun r = it.next();
            double dt = (now - r.lastAt) / 1000.0 * timeScale;
            r.lastAt = now;
            if (r.stopping) {
                checkpoints.put(r.launch.jobId(), r.done); // it checkpoints on SIGTERM
                log(r.launch, "[tandem] stopped (SIGTERM)\n");
                events.add(new ExecEvent.Exited(r.launch.jobId(), 143, false, null));
                it.remove();
                ended.put(r.launch.jobId(), r);
                continue;
            }
            if (dt >= r.oomIn) {
                checkpoints.put(r.launch.jobId(), r.resumedFrom + settings.restartOverheadSeconds() * r.profile.soloSpeed()); // what it did since is lost
                log(r.launch, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (simulated: the pair does not fit in the GPU's memory)\n");
                events.add(new ExecEvent.Exited(r.launch.jobId(), 1, true, null));
                it.remove();
                ended.put(r.launch.jobId(), r);
                continue;
            }
            r.oomIn -= dt;
            r.done = Math.min(r.total, r.done + r.profile.soloSpeed() * factors.get(r) * dt);
            if (r.total - r.done <= 1e-9 * r.total) r.done = r.total; // the moment nextEventMillis gave, up to rounding
            events.add(new ExecEvent.Progress(r.launch.jobId(), reported(r), now));
            r.sinceLog += dt;
            if (r.done >= r.nextLog * r.total || r.sinceLog >= LOG_AT_LEAST_EVERY_S) {
                log(r.launch, "tandem:progress iter=" + (long) Math.floor(r.done) + "\n");
                while (r.done >= r.nextLog * r.total) r.nextLog += LOG_EVERY;
                r.sinceLog = 0;
            }
            if (r.done >= r.total) {
                checkpoints.remove(r.launch.jobId());
                log(r.launch, "done\n");
                events.add(new ExecEvent.Exited(r.launch.jobId(), 0, false, null));
                it.remove();
                ended.put(r.launch.jobId(), r);
            }
        }
        sendReadings(now, factors);
        return events;
    }

    /**
     * The iteration a run reports: where it is in the job's work, below 0 while it repeats more of a resume's overhead
     * than the job had done (the simulator's rule charges the whole overhead). It rises at the run's speed from the start,
     * so that the speed measured from it is the one the simulator observes: held at 0 meanwhile, it made a pair resumed
     * early look slow for minutes, and tandem, learning online, split a pair the simulator kept (120 s of overhead).
     */
    private static long reported(SimRun r) { return (long) Math.floor(r.done); }

    /**
     * When, on the daemon's clock, the next run ends (it completes, crashes out of memory, or stops as asked) at the
     * speeds it runs at now; Long.MAX_VALUE when nothing runs. A driver of virtual time moves the clock there.
     */
    public long nextEventMillis() {
        long next = Long.MAX_VALUE;
        for (SimRun r : runs.values()) {
            if (r.stopping) return clock.getAsLong();
            if (Double.isFinite(r.oomIn)) next = Math.min(next, r.lastAt + (long) Math.ceil(r.oomIn * 1000 / timeScale));
            double rate = r.profile.soloSpeed() * factor(r);
            if (rate > 0) next = Math.min(next, r.lastAt + (long) Math.ceil((r.total - r.done) / rate * 1000 / timeScale));
        }
        return next;
    }

    /**
     * The simulated GPUs' solo speeds: the ground truth's, per simulated second, the policy's clock here
     * ({@link #clusterSecondsPerSecond()}). The daemon plans known workloads with them, and divides a run's measured
     * rate, converted to the same clock, by them.
     */
    @Override public List<JobProfile> hardwareProfiles() {
        return List.copyOf(profiles.all());
    }

    /** {@code --time-scale}: simulated seconds per second of the daemon's clock. */
    @Override public double clusterSecondsPerSecond() { return timeScale; }

    /** Sends the simulated GPUs' readings to {@code sink}, as nvidia-smi's would reach the daemon's monitor. */
    public void sendReadingsTo(java.util.function.Consumer<GpuSample> sink) { this.readings = sink; }

    /**
     * Once a second, each simulated GPU's reading: the memory of its tenants' measured profiles, and their measured
     * utilisation scaled by how fast each runs now (capped at 100 %).
     */
    private void sendReadings(long now, Map<SimRun, Double> factors) {
        if (lastReadings != Long.MIN_VALUE && now - lastReadings < 1000) return;
        lastReadings = now;
        for (Gpu gpu : cluster.gpus()) {
            double util = 0, memUtil = 0, mem = 0;
            for (SimRun r : runs.values()) {
                if (!r.gpus.contains(gpu.id())) continue;
                double f = factors.getOrDefault(r, 1.0);
                util += nanToZero(r.profile.gpuUtil()) * f;
                memUtil += nanToZero(r.profile.gmemUtil()) * f;
                mem += nanToZero(r.profile.gmemMiB());
            }
            readings.accept(GpuSample.fromSmi(gpu.id(), now, Math.min(100, util), Math.min(100, memUtil), mem));
        }
    }

    private static double nanToZero(double v) { return Double.isNaN(v) ? 0 : v; }

    /**
     * A profiling run's readings: its measured profile's utilisation and memory on each of its GPUs, at once (the
     * data is the measurement), also for a run that already ended.
     */
    @Override public Optional<GpuReadings> jobReadings(long jobId, int attempt, List<Integer> gpus) {
        SimRun r = runs.containsKey(jobId) ? runs.get(jobId) : ended.get(jobId);
        if (r == null || r.launch.attempt() != attempt) return Optional.of(new GpuReadings(List.of(), List.of(), true));
        long now = clock.getAsLong();
        List<GpuSample> smi = new ArrayList<>();
        for (int g : gpus) {
            for (int i = 0; i < 10; i++) smi.add(GpuSample.fromSmi(g, now, r.profile.gpuUtil(), r.profile.gmemUtil(), r.profile.gmemMiB()));
        }
        return Optional.of(new GpuReadings(smi, List.of(), true));
    }

    @Override public void stop(long jobId) {
        SimRun r = runs.get(jobId);
        if (r != null) r.stopping = true;
    }

    @Override public double resumeOverheadSeconds() { return settings.restartOverheadSeconds(); }

    /** Nothing outlives the daemon here: a run from before a restart is gone and is requeued. */
    @Override public boolean adopt(long jobId, int attempt, Long pid, Long pidStarted) { return false; }

    @Override public String containment() { return "simulated: runs are not processes"; }

    @Override public Set<Long> liveJobs() { return Set.copyOf(runs.keySet()); }

    @Override public void stopAll() {
        runs.keySet().forEach(this::stop);
        pending.addAll(poll());
    }

    @Override public void close() {
        runs.clear();
    }

    private void log(Launch l, String text) {
        Path file = LocalExecutor.logFile(stateDir, l.jobId());
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new ExecException("cannot write the output of simulated job " + l.jobId() + ": " + e.getMessage(), e);
        }
    }
}
