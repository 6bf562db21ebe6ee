package dev.tandem.server.sched;

import dev.tandem.core.runtime.DecisionCarrier;
import dev.tandem.core.compat.OnlineCorrectedModel;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.core.runtime.ThreadCpu;
import dev.tandem.server.exec.ExecEvent;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.ThreadPriority;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The live scheduler: one thread that, each tick or when woken (a submission, a cancel), polls the executor,
 * settles ended runs, finishes profiling, measures speeds, and, when something changed or a round is due,
 * builds the snapshot, calls {@code policy.decide(snapshot)} and applies the decisions. It is the only user of
 * the executor; the API talks to it through the store and {@link #wake()}, and reads {@link #live()}.
 */
public final class SchedulerLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SchedulerLoop.class);

    private final Context ctx;
    private final Policy policy;
    private final SnapshotBuilder snapshots;
    private final Profiling profiling;
    private final ExitHandler exits;
    private final DecisionApplier applier;
    private final Observations observations;
    private final Explainer explainer;
    private final QueueGate gate;
    private final Binder binder = new Binder(this::wake);
    private final List<ServerMetrics.GpuGauges> gpuGauges = new java.util.ArrayList<>();
    private final Object signal = new Object();
    private final Object published = new Object();
    private volatile boolean woken;
    /** Wake-ups since the last round began: more than one means a stream of them (see {@link #settle}). */
    private final java.util.concurrent.atomic.AtomicInteger wakes = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean running;
    /** Rounds run when the driver of virtual time steps them, not on a thread of the loop's own. */
    private volatile boolean virtualTime;
    private volatile LiveState live = LiveState.EMPTY;
    private Thread thread;
    private SchedulerSnapshot lastSnapshot;
    private LiveState.Waiting waiting = LiveState.Waiting.NONE;
    /**
     * When the policy is next asked although nothing changed: a fixed grid of {@code roundMs} from the first round, as
     * the simulator's rounds (so that both worlds ask a policy at the same moments).
     */
    private long nextRound = Long.MIN_VALUE;
    /** When the last decision ended and how long it took (System.nanoTime): the next one waits at least as long. */
    private long lastDecisionEnd, lastDecisionNanos;

    /** On the wall clock. @param knownProfiles solo profiles known in advance ({@link KnownProfiles}) */
    public SchedulerLoop(Store store, Executor executor, List<GpuDevice> devices, OnlineCorrectedModel oracle, GpuMonitor monitor,
                         ServerMetrics metrics, Policy policy, SchedulerConfig cfg, List<dev.tandem.core.model.JobProfile> knownProfiles) {
        this(store, executor, devices, oracle, monitor, metrics, policy, cfg, knownProfiles, java.time.InstantSource.system());
    }

    /** @param clock the wall clock, or a {@link VirtualClock} for {@link #startInVirtualTime} */
    public SchedulerLoop(Store store, Executor executor, List<GpuDevice> devices, OnlineCorrectedModel oracle, GpuMonitor monitor,
                         ServerMetrics metrics, Policy policy, SchedulerConfig cfg, List<dev.tandem.core.model.JobProfile> knownProfiles,
                         java.time.InstantSource clock) {
        this.ctx = new Context(store, executor, devices, oracle, monitor, metrics, cfg, knownProfiles, clock, policy);
        this.policy = policy;
        this.snapshots = new SnapshotBuilder(ctx);
        this.profiling = new Profiling(ctx);
        this.exits = new ExitHandler(ctx, profiling);
        this.applier = new DecisionApplier(ctx, exits, binder);
        this.observations = new Observations(ctx);
        this.explainer = new Explainer(ctx, policy);
        this.gate = new QueueGate(ctx);
        for (GpuDevice d : devices) gpuGauges.add(metrics.gpu(d.index(), d.node(), d.uuid(), d.memoryMiB()));
    }

    /** Re-adopts what an earlier daemon left running, then starts the loop's thread. */
    public void start() {
        new Recovery(ctx).run(ctx.now());
        running = true;
        thread = Thread.ofPlatform().name("scheduler").start(() -> {
            raisePriority();
            loop();
        });
    }

    /**
     * The nice value the loop's thread asks for: above the API's threads and the jobs (0), so that a flood of requests
     * or busy training processes on a small machine do not make each round wait for a core (measured with
     * SubmitBenchmark: server/README.md). Permitted to root or with CAP_SYS_NICE; elsewhere the thread stays at 0.
     */
    static final int SCHEDULER_NICE = -10;

    /** Under a stream of wake-ups, the pause before the next decision, in multiples of the last decision's time ({@link #settle}). */
    static final int SETTLE_FACTOR = 3;

    private static void raisePriority() {
        if (ThreadPriority.set(SCHEDULER_NICE)) {
            log.info("scheduler thread at nice {} (jobs start at {})", SCHEDULER_NICE, ThreadPriority.NORMAL);
        } else {
            log.info("scheduler thread at the normal priority: raising it needs root or CAP_SYS_NICE");
        }
    }

    /**
     * Re-adopts what an earlier daemon left running, and starts no thread: rounds run when the driver of virtual time
     * calls {@link #step}, after it moved the clock to {@link #nextDueMillis} or to the next arrival.
     */
    public void startInVirtualTime() {
        new Recovery(ctx).run(ctx.now());
        virtualTime = true;
        running = true;
    }

    /** One round, on the caller's thread (virtual time only: the loop's own thread runs them otherwise). */
    public void step() {
        if (!virtualTime) throw new IllegalStateException("the scheduler runs on its own thread");
        round();
    }

    /**
     * When this loop next has work of its own (virtual time): now when something changed, else the earliest of the next
     * periodic round, a running job's speed becoming measured and a profiling run's end. Moments already past were
     * looked at by the round that just ran at this instant, so they do not keep the driver stepping in place.
     */
    public long nextDueMillis() {
        long now = ctx.now();
        if (woken || ctx.due.ready(ctx.time.seconds(now))) return now;
        long next = nextRound;
        for (Run r : ctx.runs.all()) {
            if (Double.isNaN(r.observed)) next = earliestAfter(now, next, r.placedAt + ctx.cfg.observeMs());
            if (r.profiling) next = earliestAfter(now, next, r.profileSince + ctx.cfg.profileMs());
        }
        double roundEnd = ctx.due.roundEnd();
        if (roundEnd < Double.POSITIVE_INFINITY) next = earliestAfter(now, next, ctx.time.millisAtOrAfter(roundEnd));
        double ready = ctx.due.readyAt(); // a decision due, waiting for the policy's time between decisions to pass
        if (ready < Double.POSITIVE_INFINITY) next = earliestAfter(now, next, ctx.time.millisAtOrAfter(ready));
        return next;
    }

    private static long earliestAfter(long now, long next, long due) {
        return due > now ? Math.min(next, due) : next;
    }

    /** The daemon's time: the wall clock, or the virtual one. */
    public long now() { return ctx.now(); }

    /** Asks for a round now (new job, cancel). */
    public void wake() {
        wakes.incrementAndGet();
        woken = true;
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    public LiveState live() { return live; }

    /** Whether the loop runs (false once the daemon shuts down: live views end). */
    public boolean running() { return running; }

    public DecisionLog decisions() { return ctx.decisions; }

    public Timeline timeline() { return ctx.timeline; }

    public String policyName() { return policy.name(); }

    /**
     * Waits until the loop publishes a state newer than {@code at} (or {@code timeoutMs} passes); returns the latest.
     * Live views (the dashboard's event stream) wait here instead of polling.
     */
    public LiveState awaitNewer(long at, long timeoutMs) throws InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        synchronized (published) {
            while (live.at() <= at && running) {
                long left = end - System.currentTimeMillis();
                if (left <= 0) break;
                published.wait(left);
            }
        }
        return live;
    }

    /**
     * Why the daemon cannot schedule now, or empty when it can: the loop has not started, its thread has ended, or
     * it has not ticked for 30 s (or ten rounds, if longer). For {@code /readyz}.
     */
    public java.util.Optional<String> notReady(long nowMs) {
        if (!running) return java.util.Optional.of("the scheduler is not running");
        Thread t = thread;
        if (!virtualTime && (t == null || !t.isAlive())) return java.util.Optional.of("the scheduler's thread has ended");
        long at = live.at(), limit = Math.max(30_000, 10 * ctx.cfg.roundMs());
        if (at == 0) return java.util.Optional.of("the scheduler has not completed its first round");
        if (nowMs - at > limit) return java.util.Optional.of("no scheduling round for " + (nowMs - at) / 1000 + " s");
        return java.util.Optional.empty();
    }

    public List<GpuDevice> devices() { return ctx.devices; }

    /** The most GPUs one job can get (a job runs on one node). */
    public int widestJob() { return ctx.cluster.widestJob(); }

    /**
     * Lets the loop schedule GPUs another daemon holds as soon as it lets them go (before {@link #start}); without
     * locks every GPU given is this daemon's.
     */
    public void useGpuLocks(dev.tandem.server.exec.GpuLocks locks) { ctx.unusable.useLocks(locks); }

    /** Why this daemon's executor cannot enforce a job's run limits; empty where it can. */
    public java.util.Optional<String> cannotEnforce(dev.tandem.server.store.RunLimits limits) { return ctx.executor.cannotEnforce(limits); }

    /** Why this daemon's executor can never run a job of this workload; empty where it can. */
    public java.util.Optional<String> cannotRun(dev.tandem.core.model.WorkloadSignature workload) { return ctx.executor.cannotRun(workload); }

    /** Why this daemon's executor cannot use this variable of a job's environment; empty where it can. */
    public java.util.Optional<String> cannotUse(String variable, String value) { return ctx.executor.cannotUse(variable, value); }

    private void loop() {
        while (running) {
            try {
                round();
            } catch (RuntimeException e) {
                // a bad round (store hiccup, unexpected state) must not end scheduling; the next round retries
                log.error("scheduling round failed: {}", e.toString(), e);
            }
            synchronized (signal) {
                if (!woken && running) {
                    try {
                        signal.wait(ctx.cfg.tickMs());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
            if (!settle()) return;
        }
    }

    /**
     * Under a stream of submissions every one wakes the loop: when more than one wake-up came since the last round
     * began, the next decision waits until {@link #SETTLE_FACTOR} times as long as the last one took has passed since
     * it ended, so that the wake-ups arriving meanwhile share one decision and deciding takes at most a quarter of the
     * loop's time. The loop's thread runs at a higher priority than the API's ({@link #SCHEDULER_NICE}): deciding
     * more often would take the cores the submissions need. A single wake-up (one submission to a quiet daemon) is
     * decided at once. False when interrupted.
     */
    private boolean settle() {
        long wait = SETTLE_FACTOR * lastDecisionNanos - (System.nanoTime() - lastDecisionEnd);
        if (!woken || wakes.get() < 2 || wait <= 0) return true;
        try {
            Thread.sleep(java.time.Duration.ofNanos(wait));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void round() {
        long t0 = System.nanoTime(), cpu0 = ThreadCpu.nanos();
        if (woken) {
            woken = false;
            wakes.set(0);
            ctx.due.happened();
        }
        long now = ctx.now();
        for (Binder.Bound b : binder.done()) applier.bound(b, now); // starts whose sbatch has returned: before the executor's events about them
        for (ExecEvent e : ctx.executor.poll()) {
            switch (e) {
                case ExecEvent.Progress p -> {
                    Run r = ctx.runs.get(p.jobId());
                    if (r != null) r.meter.add(p.at(), p.iteration());
                }
                case ExecEvent.Waiting w -> ctx.store.note(w.jobId(), Context.ACTOR, w.why(), now);
                case ExecEvent.Exited x -> exits.exited(x, now).ifPresent(gpus -> migrate(x.jobId(), gpus, now));
            }
        }
        List<JobRecord> unfinished = ctx.store.unfinishedJobs();
        ctx.learned.arrivals(unfinished);
        Map<Long, JobRecord> jobs = new RoundJobs(unfinished);
        for (Run run : ctx.runs.all()) if (!jobs.containsKey(run.jobId)) ctx.store.job(run.jobId).ifPresent(r -> jobs.put(r.id(), r));
        applier.startPromised(jobs, now); // GPUs the policy promised, freed by the runs it stopped
        enforceTimeLimits(jobs, now);
        stopWhatWasCancelled(jobs);
        profiling.check(jobs, now);
        // when the policy is asked: the simulator's rule (events at once, time alone from when it wants to be woken)
        double policyNow = ctx.time.seconds(now);
        ctx.due.roundEnded(policyNow);
        if (observations.update(now)) ctx.due.measured(policyNow);
        if (ctx.unusable.refresh(now)) ctx.due.happened(); // a GPU became busy with someone else's work, or free of it
        if (nextRound == Long.MIN_VALUE) nextRound = now + ctx.cfg.roundMs();
        boolean periodic = now >= nextRound;
        if (periodic) ctx.due.periodic(policyNow);
        boolean ask = ctx.due.ready(policyNow);
        if (ask || periodic) { // a periodic round also brings the waiting jobs' explanations up to date
            while (nextRound <= now) nextRound += ctx.cfg.roundMs();
            List<JobRecord> queued = snapshots.queued(unfinished, applier.promised());
            QueueGate.Verdict verdict = gate.apply(queued, jobs, snapshots::pending, now);
            SchedulerSnapshot snapshot = snapshots.build(jobs, verdict.admitted(), now);
            // asked now: what carrying out its decision changes on the way (a start the executor could not make yet) asks again
            if (ask) ctx.due.decided(policyNow);
            if (ask && ctx.due.worthAsking(!snapshot.queue().isEmpty(), !snapshot.running().isEmpty())) {
                List<Decision> decisions = policy.decide(snapshot);
                applier.apply(decisions, snapshot, jobs, now);
            }
            lastSnapshot = snapshot;
            waiting = explainer.waiting(snapshot, jobs, verdict, applier.promisedGpus(), now);
            long cpu1 = ThreadCpu.nanos(); // first: the CPU interval lies within the wall-clock one
            lastDecisionEnd = System.nanoTime();
            lastDecisionNanos = lastDecisionEnd - t0;
            ctx.metrics.round(lastDecisionNanos, cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0, queued.size(), ctx.devices.size(), ctx.runs.busyGpus(), ctx.runs.sharedGpus(),
                    ctx.unusable.idleUnusable());
            ctx.metrics.jobsByState(ctx.store.countByState());
        }
        LiveState next = explainer.publish(waiting, now);
        List<double[]> tenantSpeeds = tenantSpeeds();
        exportGauges(next, tenantSpeeds);
        sampleTimeline(next, tenantSpeeds, now);
        synchronized (published) {
            live = next;
            published.notifyAll();
        }
    }

    /**
     * Per GPU, the speed relative to alone of each run on it: its measured one beside a partner (NaN until measured), 1
     * alone. The dashboard's gain from sharing and Prometheus' co-located speeds read the same numbers.
     */
    private List<double[]> tenantSpeeds() {
        List<double[]> tenantSpeeds = new java.util.ArrayList<>(ctx.runs.gpuCount());
        for (int g = 0; g < ctx.runs.gpuCount(); g++) {
            tenantSpeeds.add(ctx.runs.on(g).stream().mapToDouble(r -> r.partner != null ? r.observed : 1.0).toArray());
        }
        return tenantSpeeds;
    }

    /** The dashboard's series: GPUs busy and shared, utilisation, each running job's speed, the gain from sharing. */
    private void sampleTimeline(LiveState state, List<double[]> tenantSpeeds, long now) {
        ctx.timeline.account(now, tenantSpeeds);
        List<Double> util = new java.util.ArrayList<>();
        for (LiveState.GpuLive g : state.gpus()) util.add(g.latest() == null ? Double.NaN : g.latest().utilGpu());
        Map<Long, Timeline.SpeedPoint> speeds = new java.util.HashMap<>();
        for (Run r : ctx.runs.all()) {
            speeds.put(r.jobId, new Timeline.SpeedPoint(now, r.partner != null ? r.observed : Double.NaN, r.iterationsPerSecond));
        }
        ctx.timeline.sample(now, ctx.runs.busyGpus(), ctx.runs.sharedGpus(), util, speeds);
    }

    /**
     * Per-GPU readings and, per shared GPU whose runs all have measured speeds ({@link #tenantSpeeds}), their sum and
     * the least, for Prometheus (by GPU, not by job: see {@link ServerMetrics}).
     */
    private void exportGauges(LiveState state, List<double[]> tenantSpeeds) {
        List<ServerMetrics.SharedGpu> shared = new java.util.ArrayList<>();
        for (LiveState.GpuLive g : state.gpus()) {
            var s = g.latest();
            ServerMetrics.GpuGauges gauges = gpuGauges.get(g.clusterId());
            gauges.set(s == null ? Double.NaN : s.utilGpu(), s == null ? Double.NaN : s.memoryUsedMiB(), g.jobs().size());
            double[] speeds = tenantSpeeds.get(g.clusterId());
            if (speeds.length < 2) continue;
            double sum = 0, least = Double.POSITIVE_INFINITY;
            for (double speed : speeds) {
                sum += speed;
                least = Math.min(least, speed);
            }
            if (Double.isFinite(sum)) shared.add(new ServerMetrics.SharedGpu(gauges, sum, least));
        }
        ctx.metrics.colocatedSpeeds(shared);
    }

    /**
     * A run that outlasts its job's time limit fails the job (as Slurm's TIMEOUT); its processes are then stopped
     * like a cancelled job's, and it is not retried.
     */
    private void enforceTimeLimits(Map<Long, JobRecord> jobs, long now) {
        for (Run run : ctx.runs.all()) {
            if (ctx.carrier.stopping(run.jobId) != null) continue;
            JobRecord r = jobs.get(run.jobId);
            if (r == null || r.timeLimitMs() == null || now - run.startedAt <= r.timeLimitMs() || !JobState.ON_GPU.contains(r.state())) continue;
            String why = "time limit of " + limitText(r.timeLimitMs()) + " reached; stopped";
            if (ctx.store.transition(r.id(), JobState.ON_GPU, JobState.FAILED, Context.ACTOR, why, Change.none(), now)) {
                log.info("job {}: {}", r.id(), why);
                ctx.decisions.add(now, r.id(), r.owner(), "failed", why);
                ctx.store.job(r.id()).ifPresent(updated -> jobs.put(updated.id(), updated));
                ctx.due.happened();
            }
        }
    }

    /** A limit as a user writes it: 2h, 90m, 45s, 1500ms. */
    static String limitText(long ms) {
        if (ms % 86_400_000 == 0) return ms / 86_400_000 + "d";
        if (ms % 3_600_000 == 0) return ms / 3_600_000 + "h";
        if (ms % 60_000 == 0) return ms / 60_000 + "m";
        if (ms % 1000 == 0) return ms / 1000 + "s";
        return ms + "ms";
    }

    /** The API cancels in the store, a time limit fails a job; here the processes of such jobs are stopped. */
    private void stopWhatWasCancelled(Map<Long, JobRecord> jobs) {
        for (Run run : ctx.runs.all()) {
            if (ctx.carrier.stopping(run.jobId) != null) continue;
            JobRecord r = jobs.get(run.jobId);
            if (r == null || JobState.ON_GPU.contains(r.state())) continue;
            ctx.carrier.beganStopping(run.jobId, r.state() == JobState.CANCELLED || r.state() == JobState.FAILED ? DecisionCarrier.Stop.END : DecisionCarrier.Stop.SUSPEND);
            ctx.executor.stop(run.jobId);
        }
    }

    private void migrate(long jobId, List<Integer> gpus, long now) {
        Optional<JobRecord> job = ctx.store.job(jobId);
        if (job.isEmpty() || job.get().state() != JobState.SUSPENDED) return;
        applier.migrated(job.get(), gpus, lastSnapshot, now);
    }

    /**
     * Stops the loop. With {@code stopJobs} the running jobs are stopped and requeued (they start again when the
     * daemon does); without, they keep running and the next daemon re-adopts them.
     */
    public void shutdown(boolean stopJobs) {
        running = false;
        wake();
        synchronized (published) {
            published.notifyAll(); // live views waiting for the next state end
        }
        if (thread != null) {
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        binder.close(); // starts still being bound finish, so that their runs are known and stopped or left running like the rest
        for (Binder.Bound b : binder.done()) applier.bound(b, ctx.now());
        if (stopJobs) {
            long now = ctx.now();
            for (Run run : ctx.runs.all()) {
                ctx.store.transition(run.jobId, JobState.ON_GPU, JobState.PENDING, Context.ACTOR, "daemon shut down; requeued",
                        new Change().set(Change.Column.QUEUED_AT, now).set(Change.Column.PID, null).set(Change.Column.PID_STARTED, null), now);
            }
            ctx.executor.stopAll();
        }
        ctx.executor.close();
    }

    @Override public void close() { shutdown(false); }
}
