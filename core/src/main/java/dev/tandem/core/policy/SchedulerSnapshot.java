package dev.tandem.core.policy;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.runtime.LengthEstimates;
import dev.tandem.core.runtime.OutOfMemoryRule;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * Everything a policy may look at: the cluster, the queue in submission order, the running jobs and who runs
 * where, the solo profiles, the compatibility oracle, and what has been learned about memory from crashes.
 *
 * <p>Lists are taken as given (no defensive copy): a world hands read-only views that stay unchanged for the
 * duration of one decide() call, which keeps large queues and clusters cheap to snapshot.
 */
public final class SchedulerSnapshot {
    private final double now;
    private final Cluster cluster;
    private final List<PendingJob> queue;
    private final List<RunningJob> running;
    private final ProfileStore profiles;
    private final CompatibilityModel compatibility;
    private final MemoryRule memoryRule;
    private final Map<WorkloadSignature, Long> memoryEstimates;
    private final Set<String> oomPairs;
    private Occupancy occupancy;
    private QueueJournal queueJournal;
    private RunningJournal runningJournal;
    private SoleTenantJournal soleTenantJournal;
    private Map<String, String> runsAlone = Map.of();
    /** The oracle's answers during this decision, or across decisions where the world keeps them ({@link #withPredictionMemo}). */
    private PredictionMemo predictions = new PredictionMemo();
    /** How far declared lengths proved right so far, or null where the world does not judge them (then they are taken as given). */
    private LengthEstimates lengthEstimates;

    /**
     * @param memoryEstimates raised per-signature memory needs learned from out-of-memory crashes
     * @param oomPairs        signature pairs that crashed with out-of-memory when co-located ("a|b", both orders)
     * @param occupancy       the world's indexes of {@code running}, or null to build them on first use
     */
    public SchedulerSnapshot(double now, Cluster cluster, List<PendingJob> queue, List<RunningJob> running, ProfileStore profiles,
                             CompatibilityModel compatibility, MemoryRule memoryRule, Map<WorkloadSignature, Long> memoryEstimates,
                             Set<String> oomPairs, Occupancy occupancy) {
        this.now = now;
        this.cluster = cluster;
        this.queue = queue;
        this.running = running;
        this.profiles = profiles;
        this.compatibility = compatibility;
        this.memoryRule = memoryRule;
        this.memoryEstimates = memoryEstimates;
        this.oomPairs = oomPairs;
        this.occupancy = occupancy;
    }

    /** A snapshot whose occupancy indexes are built from {@code running} when first needed. */
    public SchedulerSnapshot(double now, Cluster cluster, List<PendingJob> queue, List<RunningJob> running, ProfileStore profiles,
                             CompatibilityModel compatibility, MemoryRule memoryRule, Map<WorkloadSignature, Long> memoryEstimates,
                             Set<String> oomPairs) {
        this(now, cluster, queue, running, profiles, compatibility, memoryRule, memoryEstimates, oomPairs, null);
    }

    /**
     * Tells policies how the queue changed since earlier rounds ({@link QueueJournal}); worlds whose queue order is
     * fixed call this before handing the snapshot to the policy.
     */
    public SchedulerSnapshot withQueueJournal(QueueJournal journal) {
        this.queueJournal = journal;
        return this;
    }

    /**
     * Tells policies which jobs started and stopped since earlier rounds ({@link RunningJournal}); a world that keeps
     * one records every change to its running jobs in it.
     */
    public SchedulerSnapshot withRunningJournal(RunningJournal journal) {
        this.runningJournal = journal;
        return this;
    }

    /**
     * Tells policies which jobs came to run alone and stopped doing so since earlier rounds ({@link SoleTenantJournal});
     * a world that keeps one records every change to its {@link Occupancy#soleTenantJobs()} in it.
     */
    public SchedulerSnapshot withSoleTenantJournal(SoleTenantJournal journal) {
        this.soleTenantJournal = journal;
        return this;
    }

    /**
     * Tells policies which jobs must not share a GPU, by job id, and why: a job that ran out of memory next to a
     * partner runs alone from then on ({@link OutOfMemoryRule}), and live, a job of a workload not yet profiled runs
     * alone to be profiled. Neither joins nor hosts a partner ({@link Pairing}).
     */
    public SchedulerSnapshot withRunsAlone(Map<String, String> reasons) {
        this.runsAlone = reasons;
        return this;
    }

    /** What the world learned of the lengths jobs declare ({@link #knowsLength(boolean)}). */
    public SchedulerSnapshot withLengthEstimates(LengthEstimates estimates) {
        this.lengthEstimates = estimates;
        return this;
    }

    /**
     * Whether a job's declared length should be taken as its length: the world has one ({@code declared}, a job's
     * {@code lengthKnown}) and declared lengths have proved about right so far ({@link LengthEstimates}). Where they
     * have not, every job is treated as one of unknown length: ranked and judged by the service it has had.
     */
    public boolean knowsLength(boolean declared) {
        return declared && (lengthEstimates == null || lengthEstimates.trusted());
    }

    public boolean knowsLength(PendingJob p) { return knowsLength(p.lengthKnown()); }

    public boolean knowsLength(RunningJob r) { return knowsLength(r.lengthKnown()); }

    /**
     * Keeps the oracle's answers in {@code memo} across decisions: for a world whose profiles do not change and that
     * tells the memo what the oracle learns ({@link PredictionMemo#forget}), as the simulator does.
     */
    public SchedulerSnapshot withPredictionMemo(PredictionMemo memo) {
        this.predictions = memo;
        return this;
    }

    /** Why {@code job} must run alone, or null where it may share. */
    public String runsAlone(Job job) {
        return runsAlone.isEmpty() ? null : runsAlone.get(job.id());
    }

    /** The world's journal of queue changes, or null if it keeps none (policies then rescan the queue). */
    public QueueJournal queueJournal() { return queueJournal; }

    /** The world's journal of running-job changes, or null if it keeps none (policies then look at every running job). */
    public RunningJournal runningJournal() { return runningJournal; }

    /** The world's journal of lone-tenant changes, or null if it keeps none (packing policies then regroup every lone job). */
    public SoleTenantJournal soleTenantJournal() { return soleTenantJournal; }

    public double now() { return now; }
    public Cluster cluster() { return cluster; }
    public List<PendingJob> queue() { return queue; }
    /** All running jobs; large worlds may build the list lazily, so prefer {@link #occupancy()} where it suffices. */
    public List<RunningJob> running() { return running; }
    public ProfileStore profiles() { return profiles; }
    public CompatibilityModel compatibility() { return compatibility; }
    public MemoryRule memoryRule() { return memoryRule; }
    public Map<WorkloadSignature, Long> memoryEstimates() { return memoryEstimates; }
    public Set<String> oomPairs() { return oomPairs; }

    public Occupancy occupancy() {
        if (occupancy == null) {
            occupancy = dev.tandem.core.runtime.PlacedOccupancy.of(cluster, running);
        }
        return occupancy;
    }

    public Optional<JobProfile> profile(Job job) { return profiles.find(job.signature()); }

    /** Expected solo seconds for the given iterations, or +inf when the workload has no profile. */
    public double soloSeconds(Job job, double iterations) {
        JobProfile p = profiles.orNull(job.signature()); // no Optional<Double>: asked for every queued job each round
        return p == null ? Double.POSITIVE_INFINITY : iterations / p.soloSpeed();
    }

    /** {@link #soloSeconds} of a job as a function of its iterations, its profile looked up once. */
    public DoubleUnaryOperator soloSecondsOf(Job job) {
        JobProfile p = profiles.orNull(job.signature());
        if (p == null) return iterations -> Double.POSITIVE_INFINITY;
        double speed = p.soloSpeed();
        return iterations -> iterations / speed;
    }

    /**
     * What a job of unknown length is expected to need at least, before it has run: a job that ran less is taken to
     * need this much more (the shortest run worth a suspension, see tandem's shortest-first rule).
     */
    public static final double UNKNOWN_LENGTH_FLOOR_SECONDS = 600;

    /**
     * The solo seconds a waiting job still needs as far as a policy can tell: its remaining iterations at its solo
     * speed when it knows the job's length ({@link #knowsLength(boolean)}); without one, as long as it has already run
     * (at least {@link #UNKNOWN_LENGTH_FLOOR_SECONDS}). Job lengths in GPU clusters are heavy-tailed, so a job that has run long
     * is likely to run long still: shortest expected first then becomes least attained service first, the rule
     * Tiresias applies for want of lengths. +infinity without a profile, as {@link #soloSeconds}.
     */
    public double expectedSoloSeconds(PendingJob p) {
        return knowsLength(p) ? soloSeconds(p.job(), p.remainingIterations()) : byAttainedService(p.job(), p.attainedGpuSeconds());
    }

    /** As {@link #expectedSoloSeconds(PendingJob)}, for a running job. */
    public double expectedSoloSeconds(RunningJob r) {
        return expectedSoloSeconds(r.job(), r.remainingIterations(), r.attainedGpuSeconds(), r.lengthKnown());
    }

    /** As {@link #expectedSoloSeconds(RunningJob)}, from what {@link Occupancy#readOccupants} hands out. */
    public double expectedSoloSeconds(Job job, double remainingIterations, double attainedGpuSeconds, boolean lengthKnown) {
        return knowsLength(lengthKnown) ? soloSeconds(job, remainingIterations) : byAttainedService(job, attainedGpuSeconds);
    }

    private double byAttainedService(Job job, double attainedGpuSeconds) {
        if (profiles.orNull(job.signature()) == null) return Double.POSITIVE_INFINITY;
        return unknownLengthSeconds(attainedGpuSeconds, job.gpus());
    }

    /**
     * The solo seconds a job of unknown length is expected to need still, having received {@code attainedGpuSeconds} on
     * {@code gpus} GPUs: as long as it has run, at least {@link #UNKNOWN_LENGTH_FLOOR_SECONDS}. The one rule every world
     * applies (the daemon shows it to policies that read a number of iterations).
     */
    public static double unknownLengthSeconds(double attainedGpuSeconds, int gpus) {
        return Math.max(attainedGpuSeconds / gpus, UNKNOWN_LENGTH_FLOOR_SECONDS);
    }

    /**
     * The remaining iterations a world shows for a job of unknown length that runs at {@code soloSpeed} alone:
     * {@link #unknownLengthSeconds} of it. It grows as the job runs, so a world that keeps a {@link RunningJournal} names
     * such jobs there at every decision ({@link RunningJournal#reshown}).
     */
    public static double unknownLengthIterations(double attainedGpuSeconds, int gpus, double soloSpeed) {
        return unknownLengthSeconds(attainedGpuSeconds, gpus) * soloSpeed;
    }

    /** Device memory the policy should budget for this job per GPU. */
    public long memoryNeed(Job job) {
        // estimates come only from out-of-memory crashes, so most worlds have none: no look-up by signature then
        // (exclusive policies ask for every waiting job they try)
        if (memoryEstimates.isEmpty()) return job.memoryMiB();
        long est = memoryEstimates.getOrDefault(job.signature(), 0L);
        return Math.max(job.memoryMiB(), est);
    }

    public boolean crashedTogether(Job a, Job b) {
        return !oomPairs.isEmpty() && oomPairs.contains(OutOfMemoryRule.pairKey(a.signature(), b.signature()));
    }

    /** The oracle's prediction for two jobs, unknown when either lacks a profile. */
    public PairPrediction predict(Job a, Job b) {
        // not through predictionsWith: no object per call (a packing policy asks this for every class of hosts it passes)
        return predict(a, predictions.with(a.gpus(), a.signature()), b);
    }

    /** {@code a}'s prediction beside {@code b}, from {@code a}'s row of the memo or, the first time, the oracle. */
    private PairPrediction predict(Job a, Map<WorkloadSignature, PairPrediction> row, Job b) {
        PairPrediction known = row.get(b.signature());
        if (known != null) return known;
        Optional<JobProfile> pa = profile(a), pb = profile(b);
        PairPrediction p = pa.isEmpty() || pb.isEmpty() ? PairPrediction.unknown("no profile") : compatibility.predict(pa.get(), pb.get(), a.gpus());
        row.put(b.signature(), p);
        return p;
    }

    /**
     * The oracle's predictions for {@code a} beside other jobs, for a policy that asks about many partners of one job:
     * its row of the memo is looked up once, not once per partner (the matching asks for every queued class and host).
     */
    public PartnerPredictions predictionsWith(Job a) {
        return new PartnerPredictions(a, predictions.with(a.gpus(), a.signature()));
    }

    /** {@link #predict} with the first job fixed ({@link #predictionsWith}); valid during the decision it was made for. */
    public final class PartnerPredictions {
        private final Job a;
        private final Map<WorkloadSignature, PairPrediction> row;

        private PartnerPredictions(Job a, Map<WorkloadSignature, PairPrediction> row) {
            this.a = a;
            this.row = row;
        }

        public PairPrediction predict(Job b) {
            return SchedulerSnapshot.this.predict(a, row, b);
        }
    }
}
