package dev.tandem.server.sched;

import dev.tandem.core.runtime.OutOfMemoryRule;
import dev.tandem.core.runtime.DecisionCarrier;
import dev.tandem.core.runtime.Lifecycle;
import dev.tandem.core.runtime.PlacementRules;
import dev.tandem.core.runtime.Reservations;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.server.exec.Binding;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.exec.JobCannotRun;
import dev.tandem.server.exec.ExecutorUnavailable;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.Launch;
import dev.tandem.server.exec.Launched;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.Change.Column;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Carries out the policy's decisions on this machine, through the runtime's {@link DecisionCarrier} (the same walk
 * and the same checks as the simulator's): a step the rules refuse is logged at WARN, counted and noted in the job's
 * history, and the policy is asked again next round; a start begins a run (or waits for GPUs that runs the scheduler
 * stopped still hold: the carrier's promise); a preemption or move stops the run, which checkpoints and exits in its own
 * time. What is the daemon's own: the store's states and history, the executor's runs and their asynchronous binding.
 */
final class DecisionApplier {
    private static final Logger log = LoggerFactory.getLogger(DecisionApplier.class);
    /** The last refusal recorded in each job's history, so that a decision repeated every round is noted once. */
    private final Map<Long, String> lastRefusal = new HashMap<>();

    private final Context ctx;
    private final ExitHandler exits;
    private final Binder binder;

    DecisionApplier(Context ctx, ExitHandler exits, Binder binder) {
        this.ctx = ctx;
        this.exits = exits;
        this.binder = binder;
    }

    void apply(List<Decision> decisions, SchedulerSnapshot snapshot, Map<Long, JobRecord> jobs, long now) {
        held(ctx.carrier.apply(decisions, snapshot.queue(), new Live(jobs, now, ""), ctx.time.seconds(now), snapshot), jobs, now);
    }

    /**
     * The daemon as the {@link DecisionCarrier} sees it, for one round (or one run that left): the jobs are the round's
     * records (a start replaces its job's with the stored one, so that a later step stops it from its stored state).
     */
    private final class Live implements DecisionCarrier.World<Long, Run, SchedulerSnapshot> {
        private final Map<Long, JobRecord> jobs;
        private final long now;
        /** Added to what a refused step names in the job's history. */
        private final String refusedSuffix;

        Live(Map<Long, JobRecord> jobs, long now, String refusedSuffix) {
            this.jobs = jobs;
            this.now = now;
            this.refusedSuffix = refusedSuffix;
        }

        @Override public dev.tandem.core.model.Cluster cluster() { return ctx.cluster; }

        /** The job a decision names, or null when this round does not know it (not a number, not an unfinished job). */
        @Override public Long key(String jobId) {
            try {
                Long id = Long.parseLong(jobId);
                return jobs.get(id) != null ? id : null;
            } catch (NumberFormatException e) {
                return null;
            }
        }

        @Override public String id(Long job) { return Long.toString(job); }

        @Override public Lifecycle.Phase phase(Long job) {
            JobRecord r = jobs.get(job);
            return r == null ? null : r.state().phase();
        }

        @Override public int gpus(Long job) { return jobs.get(job).gpus(); }

        @Override public String runsAlone(Long job) {
            JobRecord r = jobs.get(job);
            return r == null ? null : ctx.runsAlone(r);
        }

        @Override public List<Integer> gpusOf(Run run) { return run.gpus; }

        @Override public String busy(Run r) {
            return r.profiling ? "job " + r.jobId + " is being profiled alone" : r.runsAlone != null ? PlacementRules.mustRunAlone(Long.toString(r.jobId), r.runsAlone) : null;
        }

        @Override public String unusable(int gpu) { return ctx.unusable.why(gpu); }

        @Override public boolean ready() { return ctx.executor.ready(); }

        @Override public void start(Long id, List<Integer> gpus, String reason, SchedulerSnapshot snapshot) {
            lastRefusal.remove(id);
            startOn(jobs.get(id), gpus, reason, snapshot, jobs, now);
            // a later step may stop it again (the simulator's job is placed at once): it does so from its stored state now
            ctx.store.job(id).ifPresent(started -> jobs.put(id, started));
        }

        /** Stops a running job for the policy; it stays on its GPUs (in the ledger) until its process has ended. */
        @Override public DecisionCarrier.Outcome stop(Long id, DecisionCarrier.Stop why, List<Integer> moveTo, Decision step) {
            JobRecord job = jobs.get(id);
            String reason = why == DecisionCarrier.Stop.MOVE ? "migrating to GPU(s) " + ctx.describe(moveTo) + ": " + step.reason() : "preempted: " + step.reason();
            if (!JobState.ON_GPU.contains(job.state())) return DecisionCarrier.Outcome.NOT;
            if (!ctx.store.transition(id, JobState.ON_GPU, JobState.SUSPENDED, Context.ACTOR, reason, new Change().set(Column.QUEUED_AT, now), now)) {
                return DecisionCarrier.Outcome.NOT;
            }
            ctx.metrics.decision(why == DecisionCarrier.Stop.MOVE ? "migrate" : "preempt");
            ctx.decisions.add(now, id, job.owner(), why == DecisionCarrier.Stop.MOVE ? "migrated" : "preempted", reason);
            ctx.executor.stop(id);
            return DecisionCarrier.Outcome.UNDERWAY;
        }

        @Override public void unknown(Decision d) {
            ctx.metrics.rejectedDecision();
            log.warn("policy decision refused: {} for job '{}', which this round does not know", what(d), d.jobId());
        }

        @Override public void refused(Long id, Decision d, String why) { rejected(jobs.get(id), what(d) + refusedSuffix, why, now); }

        /**
         * The job's history says where a job whose run is being stopped goes now: a re-packing policy suspends a guest
         * whose partner's GPUs are not free to join yet and, once later steps have freed them, starts it there.
         */
        @Override public void redirected(Long id, DecisionCarrier.Stopping next, Decision step) {
            String what = switch (step) {
                case Decision.Start s -> "to start on GPU(s) " + ctx.describe(s.gpus()) + " once stopped: " + s.reason();
                case Decision.Preempt p -> "suspended instead of moved: " + p.reason();
                case Decision.Migrate m -> "moving to GPU(s) " + ctx.describe(m.gpus()) + " instead: " + m.reason();
                case Decision.Reserve r -> throw new IllegalArgumentException("a hold moves no run: " + r);
            };
            ctx.store.note(id, Context.ACTOR, what, now);
        }

        /** The GPUs are free for the policy to give to someone else. */
        @Override public void promiseDropped(Long id) { ctx.due.happened(); }
    }

    /** A decision as the job's history names it when it is refused. */
    private String what(Decision d) {
        return switch (d) {
            case Decision.Start s -> "start on GPU(s) " + describe(s.gpus());
            case Decision.Preempt p -> "preempt";
            case Decision.Migrate m -> "migrate to GPU(s) " + describe(m.gpus());
            case Decision.Reserve r -> "hold GPU(s) " + describe(r.gpus());
        };
    }

    /** GPU ids as users know them, or as the policy named them where some do not exist. */
    private String describe(List<Integer> gpus) {
        for (int g : gpus) if (g < 0 || g >= ctx.devices.size()) return gpus.toString();
        return ctx.describe(gpus);
    }

    /**
     * Tells of holds that began (or moved) in the job's history and the decision log, once per hold, not at every round
     * the policy keeps it; a hold that ended without its job starting is noted in the history too.
     */
    private void held(Reservations.Changes changes, Map<Long, JobRecord> jobs, long now) {
        for (Reservations.Hold h : changes.begun()) {
            JobRecord job = jobs.get(Long.parseLong(h.jobId()));
            if (job == null) continue;
            ctx.metrics.decision("reserve");
            String what = "GPU(s) " + ctx.describe(h.gpus()) + " held for it";
            ctx.store.note(job.id(), Context.ACTOR, what + ": " + h.reason(), now);
            ctx.decisions.add(now, job.id(), job.owner(), "reserved", what + ": " + h.reason());
        }
        for (Reservations.Hold h : changes.ended()) {
            long id = Long.parseLong(h.jobId());
            if (changes.begun().stream().noneMatch(b -> b.jobId().equals(h.jobId())) && jobs.containsKey(id)) {
                ctx.store.note(id, Context.ACTOR, "GPU(s) " + ctx.describe(h.gpus()) + " no longer held for it", now);
            }
        }
    }

    /**
     * Starts a job the policy migrated, its run now stopped, on the GPUs it was moved to. Runs the same decision stopped
     * may still hold them (a re-packing policy suspends one job and moves another onto its GPU at once): they are then
     * promised to it, as to a job started there, and it starts when they have left, where the simulator moves it at the
     * moment of the decision. Before, such a move was refused and the job queued again (gavel-packed moved jobs onto
     * GPUs being freed at almost every re-packing: 197 of the demo's 200 jobs ran differently from the simulator).
     */
    void migrated(JobRecord job, List<Integer> gpus, SchedulerSnapshot snapshot, long now) {
        Map<Long, JobRecord> known = new java.util.LinkedHashMap<>();
        known.put(job.id(), job);
        for (Run r : ctx.runs.on(gpus, null)) ctx.store.job(r.jobId).ifPresent(x -> known.put(x.id(), x));
        ctx.carrier.moved(new Live(known, now, ", stays queued"), job.id(), gpus, "migrated to GPU(s) " + ctx.describe(gpus), snapshot);
    }

    /** Jobs waiting for GPUs promised to them: no longer the policy's to place. */
    Set<Long> promised() { return ctx.carrier.promised().keySet(); }

    /** The GPUs promised to each such job. */
    Map<Long, List<Integer>> promisedGpus() { return ctx.carrier.promised(); }

    /**
     * Starts the promised jobs whose GPUs are free now, each as the policy decided it (a job cancelled meanwhile, or a
     * placement the rules now refuse, is dropped, and the policy decides again).
     */
    void startPromised(Map<Long, JobRecord> jobs, long now) {
        ctx.carrier.keepPromises(new Live(jobs, now, ""));
    }

    /**
     * A decision the rules refused: the world moved since the snapshot (a job ended or started meanwhile), or the
     * policy erred. Counted every time; logged at WARN and noted in the job's history once per distinct reason (a
     * decision the policy repeats every round is logged again at DEBUG only).
     */
    private void rejected(JobRecord job, String what, String why, long now) {
        ctx.metrics.rejectedDecision();
        if (!why.equals(lastRefusal.put(job.id(), why))) {
            log.warn("policy decision refused for job {}: {}: {}", job.id(), what, why);
            ctx.store.note(job.id(), Context.ACTOR, "decision refused (" + what + "): " + why, now);
        } else {
            log.debug("policy decision refused again for job {}: {}: {}", job.id(), what, why);
        }
    }

    /**
     * Starts a queued job on GPUs the guards accepted: alone (profiling if its workload is new) or next to the job
     * there, which becomes paired too. {@code snapshot} gives the oracle's prediction for a pair (may be null).
     */
    void startOn(JobRecord job, List<Integer> gpus, String reason, SchedulerSnapshot snapshot, Map<Long, JobRecord> jobs, long now) {
        List<Run> hosts = ctx.runs.on(gpus, null);
        Run host = hosts.isEmpty() ? null : hosts.getFirst();
        JobState state;
        PairPrediction prediction = null;
        if (host != null) {
            state = JobState.PAIRED;
            JobRecord hostJob = jobs.get(host.jobId);
            if (hostJob != null && snapshot != null) prediction = snapshot.predict(ctx.job(job), ctx.job(hostJob));
        } else if (ctx.learned.profile(job.signature()).isEmpty() && !profilingUnderway(job)) {
            state = JobState.PROFILING;
            reason = "profiling alone for " + ctx.cfg.profileMs() / 1000 + " s (new workload " + job.signature().label() + "); " + reason;
        } else {
            state = JobState.RUNNING;
        }
        Optional<Run> run = launch(job, gpus, hosts.size(), state, reason, prediction, now);
        if (run.isEmpty()) return;
        ctx.metrics.decision(state == JobState.PAIRED ? "start_paired" : state == JobState.PROFILING ? "start_profiling" : "start_alone");
        run.get().profiling = state == JobState.PROFILING;
        if (host != null) {
            // the pair forms when the job that joins starts, not when the round began: a host the same round started
            // (later than the round's start) would otherwise show being paired before it started
            long formed = run.get().startedAt;
            run.get().placed(formed, host.jobId, prediction);
            PairPrediction hostSide = prediction == null ? null : prediction.swapped();
            host.placed(formed, job.id(), hostSide);
            ctx.store.recordPartners(job.id(), host.jobId, formed);
            ctx.store.transition(host.jobId, EnumSet.of(JobState.RUNNING), JobState.PAIRED, Context.ACTOR,
                    "paired with job " + job.id() + " (" + reason + ")", new Change().set(Column.PREDICTED_SPEED, hostSide == null ? null : hostSide.speedA()), formed);
        }
    }

    private boolean profilingUnderway(JobRecord job) {
        return ctx.runs.all().stream().anyMatch(r -> r.profiling && r.signature.equals(job.signature()));
    }

    /**
     * Claims a queued job for GPUs (state change first, so a job cancelled meanwhile is not started) and starts its
     * run: the run holds the GPUs from here on, the executor's quick part runs now, its slow part (sbatch) in the
     * {@link Binder}, and {@link #bound} records pid and start time. A run that cannot be started counts as a
     * crashed attempt; one the executor cannot start for now (slurmctld down) goes back to the queue; a job that no
     * attempt could start ({@link JobCannotRun}) fails.
     *
     * @param neighbours the runs already on its GPUs ({@link #startOn} has looked them up)
     */
    private Optional<Run> launch(JobRecord job, List<Integer> gpus, int neighbours, JobState state, String reason, PairPrediction prediction, long roundStart) {
        long now = Math.max(roundStart, ctx.now()); // the start time users see is when the run starts, not when the round began
        Change claim = new Change().add(Column.ATTEMPTS, 1).set(Column.GPU_IDS, Store.gpuIds(ctx.indices(gpus))).set(Column.STARTED_AT, now).setIfNull(Column.FIRST_STARTED_AT, now)
                .set(Column.PID, null).set(Column.PID_STARTED, null).set(Column.EXIT_CODE, null).set(Column.OBSERVED_SPEED, null)
                .set(Column.PREDICTED_SPEED, prediction == null ? null : prediction.speedA());
        int attempt = job.attempts() + 1;
        int tenants = 1 + neighbours;
        Run run = new Run(job.id(), job.signature(), attempt, gpus, now);
        run.runsAlone = job.exclusive() ? OutOfMemoryRule.RUNS_ALONE : null;
        // on its GPUs before anything else changes: a placement the ledger refuses (the checks before it let through a
        // third job on a GPU) claims no job and starts no process. The policy's own decision: nothing it has not seen,
        // so no new round for it (as in the simulator).
        ctx.runs.place(run, gpus);
        if (!ctx.store.transition(job.id(), JobState.QUEUED, state, Context.ACTOR, reason, claim, now)) {
            ctx.runs.remove(run);
            return Optional.empty();
        }
        List<GpuDevice> devices = gpus.stream().map(ctx.devices::get).toList();
        long budget = ctx.memoryRule.charged(ctx.job(job).memoryMiB());
        Binding<?> binding;
        try {
            binding = ctx.executor.bind(new Launch(job.id(), attempt, job.argv(), envOf(job), job.workdir(), devices, tenants,
                    ctx.job(job).memoryMiB() > 0 ? budget : 0, state == JobState.PROFILING ? ctx.cfg.profileMs() : 0, ctx.accountOf(job.owner()),
                    job.signature(), job.iterations(), job.limits()));
        } catch (ExecutorUnavailable e) {
            ctx.runs.remove(run);
            unclaim(job, state, e, now);
            return Optional.empty();
        } catch (ExecException e) {
            ctx.runs.remove(run);
            exits.startFailed(job.id(), attempt, state, e, now);
            return Optional.empty();
        }
        Binder.Start start = new Binder.Start(job, state, reason, attempt, run);
        if (binding.started()) bound(new Binder.Bound(start, binding, binding.call(), null), now);
        else binder.bind(start, binding);
        return Optional.of(run);
    }

    /**
     * Finishes a start whose slow part has returned: records pid and start time, or undoes the start (its run leaves
     * the GPUs). A run stopped while it was being started (cancelled, preempted) is stopped now that it exists.
     */
    void bound(Binder.Bound b, long now) {
        Binder.Start s = b.start();
        Run run = s.run();
        Launched l;
        try {
            l = b.finish();
        } catch (ExecutorUnavailable e) {
            exits.leave(run, now);
            unclaim(s.job(), s.state(), e, now);
            return;
        } catch (ExecException e) {
            exits.leave(run, now);
            exits.startFailed(s.job().id(), s.attempt(), s.state(), e, now);
            return;
        }
        JobRecord job = s.job();
        ctx.store.update(job.id(), new Change().set(Column.PID, l.pid()).set(Column.PID_STARTED, l.startedAt()), now);
        if (job.firstStartedAt() == null) ctx.metrics.firstStart(run.startedAt - job.submittedAt());
        log.info("job {} started on GPU(s) {} ({}, attempt {}): {}", job.id(), ctx.describe(run.gpus), s.state().name().toLowerCase(java.util.Locale.ROOT),
                s.attempt(), s.reason());
        ctx.decisions.add(now, job.id(), job.owner(), s.state() == JobState.PAIRED ? "paired" : s.state() == JobState.PROFILING ? "profiling" : "started",
                "on GPU(s) " + ctx.describe(run.gpus) + ": " + s.reason());
        if (ctx.carrier.stopping(job.id()) != null) ctx.executor.stop(job.id());
    }

    /** The job's own environment, plus its place in a job array (as Slurm's SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID). */
    private static Map<String, String> envOf(JobRecord job) {
        if (job.controls().arrayJob() == null) return job.env();
        Map<String, String> env = new java.util.LinkedHashMap<>(job.env());
        env.put("TANDEM_ARRAY_JOB_ID", String.valueOf(job.controls().arrayJob()));
        env.put("TANDEM_ARRAY_INDEX", String.valueOf(job.controls().arrayIndex()));
        return env;
    }

    /**
     * Undoes the claim of a run the executor could not start for now: no attempt is used up, so the next try has the
     * same attempt number (and the Slurm executor finds a submission that got through before the error).
     */
    private void unclaim(JobRecord job, JobState state, ExecutorUnavailable e, long now) {
        log.warn("job {} not started, back to the queue: {}", job.id(), e.getMessage());
        ctx.store.transition(job.id(), EnumSet.of(state), JobState.PENDING, Context.ACTOR, "not started (" + e.getMessage() + "); waiting for it",
                new Change().add(Column.ATTEMPTS, -1).set(Column.GPU_IDS, job.gpuIds().isEmpty() ? null : Store.gpuIds(job.gpuIds()))
                        .set(Column.STARTED_AT, job.startedAt()).set(Column.FIRST_STARTED_AT, job.firstStartedAt()), now);
        ctx.due.happened();
    }
}
