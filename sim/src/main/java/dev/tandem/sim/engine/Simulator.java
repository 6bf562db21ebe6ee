package dev.tandem.sim.engine;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.ObservationSink;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Occupancy;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.PredictionMemo;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.RunningJournal;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.core.policy.SoleTenantJournal;
import dev.tandem.core.runtime.Admission;
import dev.tandem.core.runtime.DecisionDue;
import dev.tandem.core.runtime.DecisionCarrier;
import dev.tandem.core.runtime.LengthEstimates;
import dev.tandem.core.runtime.Lifecycle;
import dev.tandem.core.runtime.MemoryLessons;
import dev.tandem.core.runtime.OutOfMemoryRule;
import dev.tandem.core.runtime.PairReports;
import dev.tandem.core.runtime.PlacedOccupancy;
import dev.tandem.core.runtime.Placements;
import dev.tandem.core.runtime.ThreadCpu;
import dev.tandem.core.runtime.PlacementRules;
import dev.tandem.core.runtime.Reservations;
import dev.tandem.core.runtime.WaitingQueue;
import dev.tandem.data.truth.InterferenceTruth;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.AbstractList;
import java.util.Collection;
import java.util.Set;

/**
 * Discrete-event simulator of a GPU cluster under a scheduling policy.
 *
 * <p>Time jumps from event to event (arrivals, completions, out-of-memory crashes, speed observations,
 * optional scheduling rounds). Between events every running job progresses at a constant rate, so progress
 * is integrated exactly: a job's iterations are only brought up to date when its rate changes, which happens
 * only when the set of jobs on one of its GPUs changes. Its completion is an event at
 * {@code now + remaining / rate}, invalidated by a version number when the rate changes. The work per event is
 * proportional to the jobs it touches, not to the cluster size.
 *
 * <p>Rates come from the ground truth ({@link InterferenceTruth}), never from the policy's oracle. A GPU whose
 * jobs do not fit in its real memory crashes the newest job {@link SimConfig#oomDetectSeconds()} after it starts;
 * that job loses the progress of the run that crashed (it restarts from the checkpoint it resumed from) and goes
 * back to the queue, where it must run alone from then on (as the daemon has it: {@link OutOfMemoryRule}). Suspended jobs keep their progress (they checkpoint on suspend). Both pay
 * {@link SimConfig#restartOverheadSeconds()} on resume.
 */
public final class Simulator {
    private final SimConfig cfg;
    private final Cluster cluster;
    private final ProfileStore profiles;
    private final InterferenceTruth truth;
    private final Recording recording;

    public Simulator(SimConfig cfg, Cluster cluster, ProfileStore profiles, InterferenceTruth truth) {
        this(cfg, cluster, profiles, truth, Recording.DEFAULT);
    }

    /** @param recording what to keep beyond the metrics: decisions with reasons, a per-GPU timeline, co-located stretches */
    public Simulator(SimConfig cfg, Cluster cluster, ProfileStore profiles, InterferenceTruth truth, Recording recording) {
        this.cfg = cfg;
        this.cluster = cluster;
        this.profiles = profiles;
        this.truth = truth;
        this.recording = recording;
    }

    public SimulationResult run(List<Job> jobs, Policy policy, CompatibilityModel oracle) {
        return run(jobs, policy, oracle, ProgressListener.NONE);
    }

    public SimulationResult run(List<Job> jobs, Policy policy, CompatibilityModel oracle, ProgressListener progress) {
        return new Run(jobs, policy, oracle, progress).execute();
    }

    private static final int ARRIVAL = 0, COMPLETION = 1, OOM = 2, OBSERVE = 3, ROUND = 4, POLICY_ROUND_END = 5, DECISION_WAKE = 6;


    private static final class JobState {
        final Job job;
        final JobProfile profile;
        /**
         * Position in submission order (by submission time; same-instant arrivals keep the order the workload lists them
         * in, never that of their ids, whose text order is arbitrary): the queue's order ({@link PendingJob#submitSeq}).
         */
        int order;
        /** The error on its total length the policies see ({@link Knowledge}), fixed for the run. */
        double lengthFactor = 1;
        /** Where it is in its life; moved only by {@link Lifecycle#after} (an illegal step is a simulator bug). */
        Lifecycle.Phase phase = Lifecycle.Phase.NEW;
        double done, extraWork, lastUpdate, rate;
        int[] gpus = new int[0];
        List<Integer> gpuList = List.of();
        double startedAt, placedAt, queuedSince, firstStart = Double.NaN, finish;
        double attained, queueTotal, longestWait, sharedSeconds, segmentStartDone;
        int restarts, ooms;
        long version, segment;
        /** Its completion and first speed observation while it runs on its current GPUs, moved as its speed changes. */
        EventQueue.Event<JobState> completion, observation;
        boolean observed, shared;
        /** The pair of its current placement went to the online model ({@link PairReports}). */
        boolean pairReported;
        PendingJob pending;
        /** Its view in the decision numbered {@link #viewDecision} (see {@link Run#view}). */
        RunningJob view;
        long viewDecision;
        Set<String> partners = Set.of(); // a LinkedHashSet once it first shares
        /**
         * The stretch with the same neighbours now running, for the {@link Recording}: when it began, the partner that
         * sets its speed and what the oracle predicted for it then, and its lane on each of its GPUs.
         */
        double stretchStart = Double.NaN, stretchPredicted;
        JobState stretchPartner;
        int[] lanes;

        JobState(Job job, JobProfile profile) {
            this.job = job;
            this.profile = profile;
        }

        double remaining() { return job.totalIterations() + extraWork - done; }
    }

    /** A job's side of a co-located pair's report to the online model. */
    private static final PairReports.Side<JobState> PAIR_SIDE = new PairReports.Side<>() {
        @Override public boolean measured(JobState js) { return js.observed; }

        @Override public boolean reported(JobState js) { return js.pairReported; }

        @Override public void markReported(JobState js) { js.pairReported = true; }
    };

    private final class Run {
        private final List<JobState> arrivals;
        private final Map<String, JobState> byId = new HashMap<>();
        /** The id {@link #job} was last asked for (compared by identity), and its job. */
        private String lookedUpId;
        private JobState lookedUp;
        private final Policy policy;
        private final CompatibilityModel oracle;
        private final ProgressListener progress;
        private final EventQueue<JobState> events = new EventQueue<>();
        /** The waiting jobs, and the journal of their changes that policies keeping their own index of the queue follow. */
        private final WaitingQueue queue = new WaitingQueue(PendingJob::bySubmission, 1 << 16);
        /**
         * Who runs where: the runtime's ledger, the same the daemon keeps its runs in, with the co-location limit and the
         * idle counts the policies read ({@link SimOccupancy}). Its jobs are the running ones, in the order they were placed.
         */
        private final Placements<String, JobState> placements = new Placements<>(cluster, js -> js.job.id());
        /** Carries out the policy's decisions, as in the daemon ({@link #world}), and keeps the GPUs it holds for waiting gangs. */
        private final DecisionCarrier<String, JobState, Void> carrier = new DecisionCarrier<>(placements);
        /** Which jobs started and stopped, so that policies ranking the running jobs follow them instead of viewing each every round. */
        private final RunningJournal runningJournal = new RunningJournal(1 << 16);
        /** GPUs whose pair the ground truth did not measure (it falls back to a model), to report how much of the sharing that was. */
        private final boolean[] fallbackGpu = new boolean[cluster.gpuCount()];
        /** Which jobs came to run alone and stopped doing so ({@link Placements#alone}), so that packing policies keep their hosts across rounds. */
        private final SoleTenantJournal soleTenantJournal = new SoleTenantJournal(1 << 16);
        private final List<JobState> newlyObserved = new ArrayList<>();
        /** Raised memory budgets and pairs never to form again ({@link OutOfMemoryRule}), as the daemon keeps them. */
        private final MemoryLessons memoryLessons = new MemoryLessons();
        /** Unfinished jobs that must not share a GPU, and why: those that crashed next to a partner ({@link OutOfMemoryRule}). */
        private final Map<String, String> runsAlone = new HashMap<>();
        /** How far the lengths the policies were shown proved right, as jobs complete ({@link LengthEstimates}). */
        private final LengthEstimates lengthEstimates = new LengthEstimates();
        /** When the declared lengths first lost trust, NaN while they never did. */
        private double lengthsDistrustedAt = Double.NaN;
        /** The oracle's answers across decisions: the profiles are fixed, and the oracle learns only in reportObservation. */
        private final PredictionMemo predictionMemo = new PredictionMemo();
        private final TimeSeries series = new TimeSeries();
        private final List<String> decisionLog = new ArrayList<>();
        private final int timelineGpus = Math.min(recording.timelineGpus(), cluster.gpuCount());
        /** Whether stretches are recorded at all: without a timeline or co-located stretches they cost nothing. */
        private final boolean stretches = timelineGpus > 0 || recording.coRuns();
        /** Which job holds each lane (two per GPU) of the timeline's GPUs. */
        private final JobState[] laneHolder = new JobState[2 * timelineGpus];
        private final List<GpuSpan> timeline = new ArrayList<>();
        private final List<CoRun> coRuns = new ArrayList<>();
        private long eventCount, policyCalls, decisionsTotal;
        private int nextArrival, completed, holdsBegun, fallbackGpus, oomEvents, preemptions, pairings, pendingOoms;
        private double clock, busyGpuSeconds, sharedGpuSeconds, fallbackGpuSeconds;
        /** When the policy is asked next: the daemon's rule too ({@link DecisionDue}). */
        private final DecisionDue due;
        /** When a decision put off for the policy's time between decisions was last set to wake the loop ({@link DecisionDue#readyAt}). */
        private double decisionWakePushed = Double.NaN;
        /** The end of the policy's own round last pushed as an event ({@link Policy#decidesInRounds()}). */
        private double roundEndPushed = Double.NaN;
        /** A policy is deciding: running jobs' views are kept for the decision ({@link #view}). */
        private boolean deciding;

        Run(List<Job> jobs, Policy policy, CompatibilityModel oracle, ProgressListener progress) {
            placements.listen(new Placements.Listener<>() {
                @Override public void placed(JobState js) { runningJournal.started(js.job); }

                @Override public void removed(JobState js) { runningJournal.stopped(js.job); }

                @Override public void alone(JobState js) { soleTenantJournal.alone(js.job); }

                @Override public void notAlone(JobState js) { soleTenantJournal.notAlone(js.job); }
            });
            this.policy = policy;
            this.due = new DecisionDue(policy, cluster);
            this.oracle = oracle;
            this.progress = progress;
            long maxMem = cluster.maxGpuMemoryMiB();
            List<JobState> list = new ArrayList<>(jobs.size());
            for (Job j : jobs) {
                if (j.gpus() > cluster.widestJob()) {
                    throw new SimulationException("job " + j.id() + " needs " + j.gpus() + " GPUs; " + (cluster.gangsSpanNodes() ? "the cluster has " + cluster.gpuCount()
                            : "a job's GPUs lie on one node here, and the largest node has " + cluster.maxGpusPerNode()));
                }
                if (j.memoryMiB() > maxMem) throw new SimulationException("job " + j.id() + " needs " + j.memoryMiB() + " MiB per GPU; the largest GPU has " + maxMem);
                int perUser = cfg.queueRules().maxGpusPerUser();
                if (perUser > 0 && j.gpus() > perUser) {
                    throw new SimulationException("job " + j.id() + " needs " + j.gpus() + " GPUs; each user may hold at most " + perUser + " at once");
                }
                JobState s = new JobState(j, profiles.get(j.signature()));
                if (byId.put(j.id(), s) != null) throw new SimulationException("duplicate job id " + j.id());
                list.add(s);
            }
            list.sort(Comparator.comparingDouble((JobState s) -> s.job.submitTime())); // stable: ties keep the input order
            for (int i = 0; i < list.size(); i++) {
                JobState s = list.get(i);
                s.order = i;
                s.lengthFactor = cfg.knowledge().lengthFactor(s.job.id(), cfg.seed());
            }
            this.arrivals = list;
        }

        SimulationResult execute() {
            long wallStart = System.nanoTime(), cpuStart = ThreadCpu.nanos();
            if (arrivals.isEmpty()) throw new SimulationException("no jobs to simulate");
            clock = arrivals.get(0).job.submitTime();
            pushNextArrival();
            if (cfg.roundSeconds() > 0) push(clock + cfg.roundSeconds(), ROUND, null, 0);
            int total = arrivals.size();
            int reportEvery = Math.max(1, total / 100), nextReport = reportEvery;
            while (completed < total) {
                EventQueue.Event<JobState> e = events.poll();
                if (e == null) throw stuck();
                advanceClock(e.time());
                process(e);
                while (events.peekTime() <= clock) process(events.poll());
                if (due.ready(clock)) {
                    schedule();
                } else if (due.pending() && due.readyAt() != decisionWakePushed) { // the policy wants time between decisions
                    decisionWakePushed = due.readyAt();
                    push(decisionWakePushed, DECISION_WAKE, null, 0);
                }
                series.add(clock, queue.size(), placements.size(), placements.busyGpus(), placements.sharedGpus());
                // stuck: nothing runs, nothing will arrive or crash, and no decision is still to come
                if (placements.isEmpty() && !queue.isEmpty() && nextArrival >= total && pendingOoms == 0 && !due.pending()) throw stuck();
                if (completed >= nextReport) {
                    progress.update(completed, total, clock);
                    nextReport = completed + reportEvery;
                }
            }
            progress.update(completed, total, clock);
            long cpuEnd = ThreadCpu.nanos();
            return result((System.nanoTime() - wallStart) / 1e9, cpuStart < 0 || cpuEnd < 0 ? Double.NaN : (cpuEnd - cpuStart) / 1e9);
        }

        private SimulationException stuck() {
            PendingJob head = queue.isEmpty() ? null : queue.jobs().get(0);
            return new SimulationException(String.format(Locale.ROOT,
                    "policy %s left %d job(s) queued on an idle cluster at t=%.0f s (first: %s needing %s GPU(s))",
                    policy.name(), queue.size(), clock, head == null ? "-" : head.id(), head == null ? "-" : head.job().gpus()));
        }

        private void push(double time, int type, JobState js, long token) {
            events.push(time, type, js, token);
        }

        private void pushNextArrival() {
            if (nextArrival < arrivals.size()) {
                JobState js = arrivals.get(nextArrival);
                push(js.job.submitTime(), ARRIVAL, js, 0);
            }
        }

        private void advanceClock(double t) {
            double dt = t - clock;
            if (dt > 0) {
                busyGpuSeconds += placements.busyGpus() * dt;
                sharedGpuSeconds += placements.sharedGpus() * dt;
                fallbackGpuSeconds += fallbackGpus * dt;
                clock = t;
            }
        }

        /**
         * A job's completion and observation move with its speed and are withdrawn when it stops ({@link JobState#completion}):
         * one that comes up belongs to the job's current placement, or the simulator has lost track of an event.
         */
        private static void current(EventQueue.Event<JobState> e, JobState js) {
            if (js.phase != Lifecycle.Phase.RUNNING || js.version != e.token())
                throw new IllegalStateException("event " + e.type() + " of job " + js.job.id() + " came up for an old placement (token " + e.token() + ", now " + js.version + ")");
        }

        private void process(EventQueue.Event<JobState> e) {
            eventCount++;
            JobState js = e.payload();
            switch (e.type()) {
                case ARRIVAL -> {
                    nextArrival++;
                    pushNextArrival();
                    lengthEstimates.arrived(declaredIterations(js) / js.profile.soloSpeed());
                    enqueue(js, Lifecycle.Step.SUBMIT);
                }
                case COMPLETION -> {
                    current(e, js);
                    advance(js); // exact integration brings done to the total; tests check it, so it is not forced here
                    js.phase = Lifecycle.after(js.phase, Lifecycle.Step.FINISH);
                    js.finish = clock;
                    lengthEstimates.finished(declaredIterations(js), js.job.totalIterations());
                    if (Double.isNaN(lengthsDistrustedAt) && !lengthEstimates.trusted()) lengthsDistrustedAt = clock;
                    js.view = null; // a million finished jobs need not keep their last view
                    if (!runsAlone.isEmpty()) runsAlone.remove(js.job.id());
                    Set<JobState> neighbours = detach(js);
                    recompute(neighbours);
                    completed++;
                    due.happened();
                }
                case OOM -> {
                    pendingOoms--;
                    if (js.phase != Lifecycle.Phase.RUNNING || js.segment != e.token()) return;
                    crash(js);
                }
                case OBSERVE -> {
                    current(e, js);
                    js.observed = true;
                    newlyObserved.add(js);
                    reportObservation(js);
                    due.measured(clock);
                }
                case ROUND -> {
                    if (completed < arrivals.size()) push(clock + cfg.roundSeconds(), ROUND, null, 0);
                    due.periodic(clock);
                }
                case DECISION_WAKE -> {} // a decision put off for the policy's time between decisions: the loop asks now
                case POLICY_ROUND_END -> {
                    due.roundEnded(clock); // an end the policy has since moved is stale
                }
                default -> throw new IllegalStateException("unknown event type " + e.type());
            }
        }

        private void enqueue(JobState js, Lifecycle.Step step) {
            js.phase = Lifecycle.after(js.phase, step);
            js.queuedSince = clock;
            js.pending = new PendingJob(js.job, clock, js.attained, seenRemaining(js, js.done, js.attained), js.restarts, lengthKnown(js, js.done), js.order);
            queue.enter(js.pending);
            due.happened();
        }

        private void dequeue(JobState js) {
            queue.leave(js.pending);
            js.queueTotal += clock - js.queuedSince;
            js.longestWait = Math.max(js.longestWait, clock - js.queuedSince);
            js.pending = null;
        }

        private void schedule() {
            if (!due.worthAsking(!queue.isEmpty(), !placements.isEmpty())) {
                due.decided(clock); // nothing to decide: as the daemon counts it
                newlyObserved.clear();
                return;
            }
            reshowUnknownLengths();
            List<RunningJob> all = new LazyList<>(placements.size(), this::runningViews);
            boolean admitting = cfg.queueRules().fairShare();
            SchedulerSnapshot snap = new SchedulerSnapshot(clock, cluster, admitting ? admitted() : queue.jobs(), all, profiles, oracle, cfg.memoryRule(),
                    memoryLessons.budgets(), memoryLessons.pairs(), new SimOccupancy())
                    // the daemon's serving order moves with what each user holds: policies that follow the queue's changes rescan then
                    .withQueueJournal(admitting ? null : queue.journal()).withRunningJournal(runningJournal)
                    .withSoleTenantJournal(soleTenantJournal).withPredictionMemo(predictionMemo)
                    .withRunsAlone(Collections.unmodifiableMap(runsAlone)).withLengthEstimates(lengthEstimates);
            policyCalls++;
            deciding = true; // nothing changes while the policy decides: each running job's view is made once
            List<Decision> decisions;
            try {
                decisions = policy.decide(snap);
            } finally {
                deciding = false;
            }
            newlyObserved.clear();
            // under queue rules the policy was shown the jobs they admitted; else every waiting job
            holdsChanged(carrier.apply(decisions, admitting ? snap.queue() : null, world, clock, null));
            // the jobs it suspended are back in the queue by its own decision: nothing it has not seen, so no decision is
            // due for them
            due.decided(clock);
            double end = due.roundEnd();
            if (end > clock && end < Double.POSITIVE_INFINITY && end != roundEndPushed) {
                push(end, POLICY_ROUND_END, null, 0);
                roundEndPushed = end;
            }
        }

        /**
         * Names in the running journal each running job of unknown length, whose remaining iterations as shown grow as
         * it runs ({@link RunningJournal#reshown}); with exact lengths there is none.
         */
        private void reshowUnknownLengths() {
            if (cfg.knowledge().kind() == Knowledge.Kind.EXACT) return;
            for (JobState js : placements.all()) if (!lengthKnown(js, doneNow(js))) runningJournal.reshown(js.job);
        }

        /**
         * The waiting jobs the daemon's queue rules let the policy start, in its serving order ({@link QueueRules}): the
         * GPUs each user holds count as the daemon counts them, every GPU of every run.
         */
        private List<PendingJob> admitted() {
            Map<String, Integer> held = new HashMap<>();
            for (JobState js : placements.all()) held.merge(js.job.user(), js.gpus.length, Integer::sum);
            int limit = cfg.queueRules().maxGpusPerUser();
            OptionalInt perUser = limit > 0 ? OptionalInt.of(limit) : OptionalInt.empty();
            return Admission.admit(queue.jobs(), held, user -> perUser).admitted();
        }

        /** Every running job as the policy sees it (built when a policy asks: preemptive ones do every round). */
        private List<RunningJob> runningViews() {
            List<RunningJob> out = new ArrayList<>(placements.size());
            for (JobState js : placements.all()) out.add(view(js));
            return Collections.unmodifiableList(out);
        }

        /** The length the job declared, in iterations ({@link Knowledge#declared}; NaN where none was). */
        private double declaredIterations(JobState js) {
            return cfg.knowledge().declared(js.job.totalIterations(), js.lengthFactor);
        }

        /** The remaining work the policies see, by what they know about length ({@link SimConfig#knowledge()}). */
        private double seenRemaining(JobState js, double done, double attained) {
            return cfg.knowledge().seenRemaining(js.job.totalIterations(), done, js.extraWork, js.lengthFactor, attained, js.job.gpus(), js.profile.soloSpeed());
        }

        /** Whether the policies are told the job's length (see {@link Knowledge#lengthKnown(double, double, double)}). */
        private boolean lengthKnown(JobState js, double done) {
            return cfg.knowledge().lengthKnown(js.job.totalIterations(), done, js.lengthFactor);
        }

        /**
         * The policy's view of a running job, as of now. While a policy decides nothing changes, so a job's view is made
         * once per decision and handed out again: a decision asks for the same job per GPU it holds, as a lone tenant
         * and in the list of every running job (on 100,000 jobs the views made again were a tenth of tandem's time).
         */
        private RunningJob view(JobState r) {
            if (!deciding) return makeView(r);
            if (r.view == null || r.viewDecision != policyCalls) {
                r.view = makeView(r);
                r.viewDecision = policyCalls;
            }
            return r.view;
        }

        private RunningJob makeView(JobState r) {
            double done = doneNow(r);
            double observed = r.observed ? r.rate / r.profile.soloSpeed() : Double.NaN;
            double attained = attainedNow(r);
            return new RunningJob(r.job, r.gpuList, r.startedAt, r.placedAt, seenRemaining(r, done, attained), attained, observed, lengthKnown(r, done));
        }

        /** The iterations a running job has done by now (its state is brought up to date only when its speed changes). */
        private double doneNow(JobState r) {
            return r.done + r.rate * (clock - r.lastUpdate);
        }

        /** The GPU-seconds a running job has received by now. */
        private double attainedNow(JobState r) {
            return r.attained + r.gpus.length * (clock - r.lastUpdate);
        }

        /** The simulator's own occupancy indexes, kept up to date as jobs start and stop. */
        private final class SimOccupancy extends PlacedOccupancy<String, JobState> {
            SimOccupancy() {
                super(Run.this.placements);
            }

            @Override protected RunningJob view(JobState js) { return Run.this.view(js); }

            @Override protected String key(String id) { return id; }

            @Override protected String id(String key) { return key; }

            @Override public List<String> jobsOn(int gpu) { return placements.keysOn(gpu); }

            @Override public void readOccupants(int gpu, Occupancy.OccupantReader reader) {
                for (JobState j : placements.on(gpu)) read(j, reader);
            }

            @Override public void readRunning(Occupancy.OccupantReader reader) {
                for (JobState j : placements.all()) read(j, reader);
            }

            /**
             * What {@link #seenRemaining} says, with what stays as it was while the job runs read once (its length, what it
             * must repeat, its error, its profile: a restart or crash, which adds work, ends the run): SRTF reads it for
             * hundreds of running jobs at each decision, and each look through the job to its profile and the knowledge
             * was a cache miss.
             */
            @Override public DoubleSupplier remainingReader(String id) {
                JobState js = Run.this.job(id);
                if (js == null || js.phase != Lifecycle.Phase.RUNNING) return null;
                Knowledge knowledge = cfg.knowledge();
                double total = js.job.totalIterations(), extra = js.extraWork, factor = js.lengthFactor, soloSpeed = js.profile.soloSpeed();
                int gpus = js.job.gpus();
                return () -> knowledge.seenRemaining(total, doneNow(js), extra, factor, attainedNow(js), gpus, soloSpeed);
            }

            /** Hands a running job to a reader with what makeView would say, without making the view. */
            private void read(JobState j, Occupancy.OccupantReader reader) {
                double done = doneNow(j), attained = attainedNow(j);
                reader.read(j.job, j.startedAt, seenRemaining(j, done, attained), attained, lengthKnown(j, done));
            }

            @Override public Optional<RunningJob> job(String id) {
                JobState js = Run.this.job(id);
                return js == null || js.phase != Lifecycle.Phase.RUNNING ? Optional.empty() : Optional.of(view(js));
            }

            @Override public Optional<Job> jobOf(String id) {
                JobState js = Run.this.job(id);
                return js == null || js.phase != Lifecycle.Phase.RUNNING ? Optional.empty() : Optional.of(js.job);
            }

            @Override public List<Integer> gpusOf(String id) {
                JobState js = Run.this.job(id);
                return js == null || js.phase != Lifecycle.Phase.RUNNING ? List.of() : js.gpuList;
            }

            @Override public Collection<Job> soleTenantJobs() {
                List<Job> jobs = new ArrayList<>(placements.alone().size());
                for (JobState js : placements.alone()) jobs.add(js.job);
                return jobs;
            }

            @Override public Collection<RunningJob> newlyObserved() {
                return newlyObserved.stream().filter(j -> j.phase == Lifecycle.Phase.RUNNING && j.observed).map(Run.this::view).toList();
            }
        }

        /**
         * The simulator as the {@link DecisionCarrier} sees it: a refused step is a policy bug and fails the run; a stop is
         * over at once (a suspended job waits again, a moved one runs on its new GPUs), so the carrier never keeps a stop or
         * a promise here; a hold changes nothing here but what is recorded ({@link #holdsChanged}).
         */
        private final DecisionCarrier.World<String, JobState, Void> world = new DecisionCarrier.World<>() {
            @Override public Cluster cluster() { return cluster; }

            @Override public String key(String jobId) { return job(jobId) != null ? jobId : null; }

            @Override public String id(String job) { return job; }

            @Override public Lifecycle.Phase phase(String jobId) { return job(jobId).phase; }

            @Override public int gpus(String jobId) { return job(jobId).job.gpus(); }

            @Override public String runsAlone(String jobId) { return runsAlone.isEmpty() ? null : runsAlone.get(jobId); }

            @Override public List<Integer> gpusOf(JobState run) { return run.gpuList; }

            @Override public String busy(JobState run) {
                String alone = runsAlone(run.job.id());
                return alone == null ? null : PlacementRules.mustRunAlone(run.job.id(), alone);
            }

            @Override public void start(String jobId, List<Integer> gpus, String reason, Void detail) {
                JobState js = job(jobId);
                dequeue(js);
                place(js, Placements.gpuArray(gpus), Lifecycle.Step.START);
                applied("start", jobId, reason);
            }

            @Override public DecisionCarrier.Outcome stop(String jobId, DecisionCarrier.Stop why, List<Integer> moveTo, Decision step) {
                JobState js = job(jobId);
                halt(js);
                if (why == DecisionCarrier.Stop.MOVE) {
                    place(js, Placements.gpuArray(moveTo), Lifecycle.Step.MOVE);
                    applied("migrate", jobId, step.reason());
                } else {
                    preemptions++;
                    enqueue(js, Lifecycle.Step.SUSPEND);
                    applied("preempt", jobId, step.reason());
                }
                return DecisionCarrier.Outcome.DONE;
            }

            @Override public void unknown(Decision d) { throw invalid(d, "no such job"); }

            @Override public void refused(String jobId, Decision d, String why) { throw invalid(d, why); }
        };

        /** A preempted or moved job stops where it is and pays the restart overhead. */
        private void halt(JobState js) {
            advance(js);
            recompute(detach(js));
            js.extraWork += cfg.restartOverheadSeconds() * js.profile.soloSpeed();
            js.restarts++;
        }

        /** Counts a step carried out ({@code kind}: start, preempt or migrate) and logs it while the log has room. */
        private void applied(String kind, String jobId, String reason) {
            decisionsTotal++;
            if (decisionLog.size() < recording.decisions()) decisionLog.add(String.format(Locale.ROOT, "t=%.0f %s %s: %s", clock, kind, jobId, reason));
        }

        /**
         * A job by its id, or null. The last one asked for is remembered by its id's identity: the rules and the steps ask
         * for a decision step's job several times running (known? its phase? its gang? then carry it out), each a look-up
         * in a map of every job of the workload, a cache miss on a long trace.
         */
        private JobState job(String id) {
            if (id != lookedUpId) {
                lookedUp = byId.get(id);
                lookedUpId = id;
            }
            return lookedUp;
        }

        /** Records the holds that began at this decision (a hold is logged once, not at every decision it lasts). */
        private void holdsChanged(Reservations.Changes changes) {
            for (Reservations.Hold h : changes.begun()) {
                holdsBegun++;
                decisionsTotal++;
                if (decisionLog.size() < recording.decisions()) {
                    decisionLog.add(String.format(Locale.ROOT, "t=%.0f reserve %s: %s", clock, h.jobId(), h.reason()));
                }
            }
        }

        private SimulationException invalid(Decision d, String why) {
            return new SimulationException("policy " + policy.name() + " made an invalid decision at t=" + clock + " (" + d + "): " + why);
        }

        /** Puts a job on GPUs, updates its neighbours' speeds, and arms an out-of-memory crash if it does not fit. */
        private void place(JobState js, int[] gpus, Lifecycle.Step step) {
            js.phase = Lifecycle.after(js.phase, step);
            js.gpus = gpus;
            js.gpuList = toList(gpus);
            js.startedAt = clock;
            js.lastUpdate = clock;
            js.segment++;
            js.segmentStartDone = js.done;
            if (Double.isNaN(js.firstStart)) js.firstStart = clock;
            List<JobState> touched = new ArrayList<>(2); // it and its neighbours, each once (a job has a few at most)
            touched.add(js);
            takeLanes(js);
            for (int g : gpus) {
                List<JobState> occ = placements.on(g);
                for (int i = 0; i < occ.size(); i++) { // indexed: an iterator per GPU and start was a tenth of a replay's allocation
                    JobState o = occ.get(i);
                    advance(o);
                    endStretch(o); // its neighbours change now
                    if (!touched.contains(o)) touched.add(o);
                }
                if (!occ.isEmpty()) pairings++;
                for (int i = 0; i < occ.size(); i++) meet(js, occ.get(i));
            }
            placements.place(js, gpus);
            boolean overflow = false;
            for (int g : gpus) {
                overflow |= overflows(g);
                countFallback(g);
            }
            recompute(touched);
            if (overflow) {
                pendingOoms++;
                push(clock + cfg.oomDetectSeconds(), OOM, js, js.segment);
            }
        }

        private void meet(JobState a, JobState b) {
            if (a.partners.isEmpty()) a.partners = new LinkedHashSet<>(2);
            if (b.partners.isEmpty()) b.partners = new LinkedHashSet<>(2);
            a.partners.add(b.job.id());
            b.partners.add(a.job.id());
        }

        /** Takes a job off its GPUs; returns the jobs that shared them (already brought up to date). */
        private Set<JobState> detach(JobState js) {
            endStretch(js);
            releaseLanes(js);
            for (int g : js.gpus) {
                List<JobState> occ = placements.on(g);
                for (int i = 0; i < occ.size(); i++) if (occ.get(i) != js) endStretch(occ.get(i)); // while js is still beside it
            }
            placements.remove(js);
            Set<JobState> neighbours = Set.of(); // most jobs run alone: no set made for them
            for (int g : js.gpus) {
                List<JobState> occ = placements.on(g);
                for (int i = 0; i < occ.size(); i++) {
                    advance(occ.get(i));
                    if (neighbours.isEmpty()) neighbours = new LinkedHashSet<>(4);
                    neighbours.add(occ.get(i));
                }
                countFallback(g);
            }
            events.withdraw(js.completion);
            events.withdraw(js.observation);
            js.gpus = new int[0];
            js.version++;
            js.rate = 0;
            js.shared = false;
            return neighbours;
        }

        private void crash(JobState js) {
            advance(js);
            List<JobState> partners = placements.on(js.gpus, js);
            long capacity = cluster.gpu(js.gpus[0]).type().memoryMiB(); // the GPU it crashed on
            recompute(detach(js));
            js.done = js.segmentStartDone;
            js.extraWork += cfg.restartOverheadSeconds() * js.profile.soloSpeed();
            js.restarts++;
            js.ooms++;
            oomEvents++;
            if (!partners.isEmpty()) runsAlone.put(js.job.id(), OutOfMemoryRule.RUNS_ALONE);
            for (JobState p : partners) memoryLessons.crashed(js.job.signature(), js.job.memoryMiB(), p.job.signature(), p.job.memoryMiB(), capacity);
            decisionsTotal++;
            if (decisionLog.size() < recording.decisions()) {
                decisionLog.add(String.format(Locale.ROOT, "t=%.0f oom %s: out of memory next to %s, back to the queue", clock, js.job.id(),
                        partners.stream().map(p -> p.job.id()).toList()));
            }
            enqueue(js, Lifecycle.Step.REQUEUE);
        }

        private boolean overflows(int g) {
            List<JobState> occ = placements.on(g);
            long capacity = cluster.gpu(g).type().memoryMiB();
            if (occ.size() == 1) return occ.get(0).job.memoryMiB() > capacity;
            JobState a = occ.get(0), b = occ.get(1);
            return truth.pair(a.profile, b.profile, a.job.gpus()).overflows(capacity, a.job.memoryMiB(), b.job.memoryMiB());
        }

        /** Recounts a GPU whose occupants changed: whether its pair is one the ground truth did not measure. */
        private void countFallback(int g) {
            List<JobState> occ = placements.on(g);
            boolean fallback = occ.size() == 2 && !truth.pair(occ.get(0).profile, occ.get(1).profile, occ.get(0).job.gpus()).measured();
            if (fallback != fallbackGpu[g]) fallbackGpus += fallback ? 1 : -1;
            fallbackGpu[g] = fallback;
        }

        private void advance(JobState js) {
            double dt = clock - js.lastUpdate;
            if (dt > 0) {
                js.done += js.rate * dt;
                js.attained += js.gpus.length * dt;
                if (js.shared) js.sharedSeconds += dt;
            }
            js.lastUpdate = clock;
        }

        /** New speeds for jobs whose neighbours changed; they must be up to date (advanced to now). */
        private void recompute(Collection<JobState> jobs) {
            for (JobState js : jobs) {
                endStretch(js);
                double rel = 1.0;
                boolean shared = false;
                JobState binding = null;
                for (int g : js.gpus) {
                    List<JobState> occ = placements.on(g);
                    for (int i = 0; i < occ.size(); i++) {
                        JobState o = occ.get(i);
                        if (o == js) continue;
                        double speed = truth.pair(js.profile, o.profile, js.job.gpus()).speedA();
                        if (!shared || speed < rel) binding = o;
                        shared = true;
                        rel = Math.min(rel, speed);
                    }
                }
                js.shared = shared;
                js.rate = js.profile.soloSpeed() * Math.max(0, rel);
                js.version++;
                js.placedAt = clock;
                js.observed = false;
                js.pairReported = false;
                if (js.rate > 0) js.completion = events.reschedule(js.completion, clock + Math.max(0, js.remaining()) / js.rate, COMPLETION, js, js.version);
                else events.withdraw(js.completion);
                js.observation = events.reschedule(js.observation, clock + cfg.observeAfterSeconds(), OBSERVE, js, js.version);
                if (!stretches) continue;
                js.stretchStart = clock;
                js.stretchPartner = binding;
                // what the policy believed when the pair formed (later the online model learns from this very stretch)
                js.stretchPredicted = binding != null && recording.coRuns() && oracle != null
                        ? oracle.predict(js.profile, binding.profile, js.job.gpus()).speedA() : Double.NaN;
            }
        }

        /** Gives a job placed on the timeline's GPUs a free lane on each (a GPU holds at most two jobs). */
        private void takeLanes(JobState js) {
            if (timelineGpus == 0) return;
            js.lanes = new int[js.gpus.length];
            for (int k = 0; k < js.gpus.length; k++) {
                int g = js.gpus[k];
                if (g >= timelineGpus) continue;
                int lane = laneHolder[2 * g] == null ? 0 : 1;
                laneHolder[2 * g + lane] = js;
                js.lanes[k] = lane;
            }
        }

        private void releaseLanes(JobState js) {
            if (timelineGpus == 0) return;
            for (int k = 0; k < js.gpus.length; k++) if (js.gpus[k] < timelineGpus) laneHolder[2 * js.gpus[k] + js.lanes[k]] = null;
        }

        /**
         * Records the stretch a job ran with its current neighbours, now that they change or it stops: a bar per
         * timeline GPU, and when it shared, its true speed against what the oracle predicts for the pair. Only
         * observes: the run's course is the same with or without a recording.
         */
        private void endStretch(JobState js) {
            double start = js.stretchStart;
            js.stretchStart = Double.NaN;
            if (Double.isNaN(start) || clock <= start) return;
            for (int k = 0; k < js.gpus.length; k++) {
                int g = js.gpus[k];
                if (g >= timelineGpus) continue;
                JobState partner = null;
                for (JobState o : placements.on(g)) if (o != js) partner = o;
                timeline.add(new GpuSpan(g, js.lanes[k], js.job.id(), start, clock, partner == null ? null : partner.job.id()));
            }
            JobState p = js.stretchPartner;
            if (p != null && recording.coRuns()) {
                boolean measured = truth.pair(js.profile, p.profile, js.job.gpus()).measured();
                coRuns.add(new CoRun(js.job.id(), p.job.id(), start, clock, js.stretchPredicted, js.rate / js.profile.soloSpeed(), measured));
            }
        }

        /**
         * Reports the job's pair to the online model now that its speed is measured, if its partner is measured already:
         * once per placement however many GPUs they share, by the rule the daemon applies too ({@link PairReports}; a gang
         * pair on 4 GPUs was once reported 4 times, and the model's smoothing then moved 4 steps towards it).
         */
        private void reportObservation(JobState js) {
            if (!(oracle instanceof ObservationSink sink) || !js.shared) return;
            for (int g : js.gpus) {
                for (JobState o : placements.on(g)) {
                    PairReports.report(js, o, PAIR_SIDE, (a, b) -> {
                        sink.observe(a.job.signature(), b.job.signature(), a.job.gpus(), a.rate / a.profile.soloSpeed(), b.rate / b.profile.soloSpeed());
                        predictionMemo.forget(a.job.signature(), b.job.signature(), a.job.gpus()); // the only place the oracle learns
                    });
                }
            }
        }

        /**
         * How long the job would take on an equal share of the cluster (its GPUs over the jobs in the system, averaged
         * over the job's own lifetime): solo time, stretched when that share is below the GPUs it needs.
         */
        private double fairShareSeconds(JobState js, double solo) {
            double from = js.job.submitTime(), to = js.finish;
            double jobs = to > from ? (series.jobsInSystemIntegral(to) - series.jobsInSystemIntegral(from)) / (to - from) : 1;
            return solo * Math.max(1, jobs * js.job.gpus() / cluster.gpuCount());
        }

        private SimulationResult result(double wallSeconds, double cpuSeconds) {
            List<JobRecord> records = new ArrayList<>(arrivals.size());
            double first = Double.POSITIVE_INFINITY, last = 0, jctSum = 0, queueSum = 0, maxWait = 0;
            double[] jcts = new double[arrivals.size()], fairness = new double[arrivals.size()];
            int i = 0;
            for (JobState js : arrivals) {
                double solo = js.job.totalIterations() / js.profile.soloSpeed();
                JobRecord rec = new JobRecord(js.job.id(), js.job.user(), js.job.signature().label(), js.job.gpus(), js.job.submitTime(), js.firstStart,
                        js.finish, js.queueTotal, solo, js.sharedSeconds, js.restarts, js.ooms,
                        js.job.totalIterations(), js.done - js.extraWork, List.copyOf(js.partners), fairShareSeconds(js, solo));
                records.add(rec);
                fairness[i] = rec.finishTimeFairness();
                first = Math.min(first, js.job.submitTime());
                last = Math.max(last, js.finish);
                jcts[i++] = js.finish - js.job.submitTime();
                jctSum += js.finish - js.job.submitTime();
                queueSum += js.queueTotal;
                maxWait = Math.max(maxWait, js.longestWait);
            }
            Arrays.sort(jcts);
            Arrays.sort(fairness);
            double makespan = last - first;
            int n = arrivals.size();
            double gpuTime = cluster.gpuCount() * makespan;
            double lengthErrorShare = lengthEstimates.errorShare();
            Metrics m = new Metrics(makespan, jctSum / n, dev.tandem.core.compat.Stats.quantileSorted(jcts, 0.5),
                    dev.tandem.core.compat.Stats.quantileSorted(jcts, 0.99), queueSum / n,
                    gpuTime > 0 ? busyGpuSeconds / gpuTime : 0, gpuTime > 0 ? sharedGpuSeconds / gpuTime : 0,
                    oomEvents, completed, preemptions, pairings, fallbackGpuSeconds, eventCount, policyCalls, wallSeconds, cpuSeconds,
                    sharedGpuSeconds > 0 ? fallbackGpuSeconds / sharedGpuSeconds : 0, maxWait,
                    dev.tandem.core.compat.Stats.quantileSorted(fairness, 0.5), fairness[n - 1], holdsBegun,
                    Double.isNaN(lengthErrorShare) ? null : lengthErrorShare,
                    Double.isNaN(lengthsDistrustedAt) ? null : lengthsDistrustedAt);
            return new SimulationResult(policy.name(), m, records, series, List.copyOf(decisionLog), decisionsTotal, List.copyOf(timeline), List.copyOf(coRuns));
        }
    }

    /**
     * A list built when an element is first asked for (most policies never look at every running job); its size is
     * known before (a policy asking only whether anything runs, as one with rounds of its own does at every event, must
     * not make every running job's view).
     */
    private static final class LazyList<T> extends AbstractList<T> {
        private final int size;
        private final Supplier<List<T>> build;
        private List<T> list;

        LazyList(int size, Supplier<List<T>> build) {
            this.size = size;
            this.build = build;
        }

        private List<T> list() {
            if (list == null) {
                list = build.get();
                if (list.size() != size) throw new IllegalStateException("built " + list.size() + " elements, not the " + size + " announced");
            }
            return list;
        }

        @Override public T get(int i) { return list().get(i); }

        @Override public int size() { return size; }
    }

    /** Immutable, so that every {@link RunningJob} view of the job shares it instead of copying it. */
    private static List<Integer> toList(int[] a) {
        Integer[] boxed = new Integer[a.length];
        for (int i = 0; i < a.length; i++) boxed[i] = a[i];
        return List.of(boxed);
    }
}
