package dev.tandem.server.sched;

import dev.tandem.core.runtime.OutOfMemoryRule;
import dev.tandem.core.runtime.DecisionRules;
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

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Carries out the policy's decisions on this machine. The policy is trusted for what to do; this class checks
 * only what the machine needs to stay sane (a decision it refuses is logged and skipped, and the policy is
 * asked again next round): at most two jobs per GPU, a job without profile or one that must run alone only on
 * idle GPUs, nobody next to a job being profiled or stopping, and jobs that are still where the policy saw them.
 */
final class DecisionApplier {
    private static final Logger log = LoggerFactory.getLogger(DecisionApplier.class);
    /** The last refusal recorded in each job's history, so that a decision repeated every round is noted once. */
    private final Map<Long, String> lastRefusal = new HashMap<>();
    /**
     * Starts the policy decided on GPUs that runs it stopped in the same decision still hold (a preemption takes until
     * the run has checkpointed and exited): the GPUs are promised to the job, which starts as soon as they are free,
     * as the simulator, where a preemption frees the GPUs at once, starts it at the moment of the decision.
     */
    private final Map<Long, Promised> promised = new java.util.LinkedHashMap<>();

    private record Promised(List<Integer> gpus, String reason, SchedulerSnapshot snapshot) {}

    private final Context ctx;
    private final ExitHandler exits;
    private final Binder binder;

    DecisionApplier(Context ctx, ExitHandler exits, Binder binder) {
        this.ctx = ctx;
        this.exits = exits;
        this.binder = binder;
    }

    void apply(List<Decision> decisions, SchedulerSnapshot snapshot, Map<Long, JobRecord> jobs, long now) {
        Step step = new Step(jobs);
        held(DecisionRules.apply(decisions, snapshot.queue(), step, ctx.reservations, ctx.time.seconds(now), new Carry(step, snapshot, now)), jobs, now);
    }

    /**
     * What the daemon does with the steps of one decision: a refused step is logged at WARN, counted and noted in the
     * job's history; a start begins a run (or is promised GPUs that runs this decision stopped still hold); a preemption
     * or move stops the run, which checkpoints and exits.
     */
    private final class Carry implements DecisionRules.Steps {
        private final Step step;
        private final SchedulerSnapshot snapshot;
        private final long now;
        /** Asked once per round, and only when something is to start. */
        private Boolean ready;

        Carry(Step step, SchedulerSnapshot snapshot, long now) {
            this.step = step;
            this.snapshot = snapshot;
            this.now = now;
        }

        @Override public boolean knows(String jobId) { return step.job(jobId) != null; }

        @Override public void unknown(Decision d) {
            ctx.metrics.rejectedDecision();
            log.warn("policy decision refused: {} for job '{}', which this round does not know", what(d), d.jobId());
        }

        @Override public void refused(Decision d, String why) { rejected(step.job(d.jobId()), what(d), why, now); }

        @Override public void start(Decision.Start s) {
            JobRecord job = step.job(s.jobId());
            // the rules let a job with a run start only after an earlier step of this decision suspended it: it starts there
            // once its run has exited (a run whose stop the store refused, its job cancelled meanwhile, is left alone)
            if (ctx.runs.get(job.id()) != null) {
                redirect(job, Run.Stop.MIGRATE, s.gpus(), "to start on GPU(s) " + ctx.describe(s.gpus()) + " once stopped: " + s.reason(), now);
                return;
            }
            begin(job, s.gpus(), s.reason());
        }

        /** Starts a waiting job now, or promises it the GPUs that runs being stopped still hold. */
        private void begin(JobRecord job, List<Integer> gpus, String reason) {
            if (ready == null) ready = ctx.executor.ready();
            if (!ready) return; // the jobs wait in the queue; the policy is asked again next round
            if (promisedOrRefused(job, gpus, reason, "start on GPU(s) " + ctx.describe(gpus), snapshot, now)) return;
            lastRefusal.remove(job.id());
            startOn(job, gpus, reason, snapshot, step.jobs, now);
            // a later step may stop it again (the simulator's job is placed at once): it does so from its stored state now
            ctx.store.job(job.id()).ifPresent(started -> step.jobs.put(job.id(), started));
        }

        @Override public void preempt(Decision.Preempt p) {
            JobRecord job = step.job(p.jobId());
            if (promised.remove(job.id()) != null) return; // started by this decision onto GPUs still being freed: it waits again
            if (stopping(job) == Run.Stop.MIGRATE) redirect(job, Run.Stop.SUSPEND, List.of(), "suspended instead of moved: " + p.reason(), now);
            else stop(job, Run.Stop.SUSPEND, List.of(), "preempted: " + p.reason(), now); // (a run already being suspended goes on)
        }

        @Override public void migrate(Decision.Migrate m) {
            JobRecord job = step.job(m.jobId());
            if (promised.remove(job.id()) != null) { // started by this decision onto GPUs still being freed: it starts there instead
                begin(job, m.gpus(), m.reason());
                return;
            }
            if (stopping(job) != Run.Stop.NONE) { // its run is being stopped already: it goes there instead
                redirect(job, Run.Stop.MIGRATE, m.gpus(), "moving to GPU(s) " + ctx.describe(m.gpus()) + " instead: " + m.reason(), now);
            } else {
                stop(job, Run.Stop.MIGRATE, m.gpus(), "migrating to GPU(s) " + ctx.describe(m.gpus()) + ": " + m.reason(), now);
            }
        }
    }

    /**
     * Why the job's run is being stopped (by this decision or an earlier one: a run checkpoints and exits in its own
     * time, and a policy may be shown it running meanwhile), or NONE; a job without a run, or one stopped because it was
     * cancelled or failed, counts as NONE: a later step does not re-direct such a stop.
     */
    private Run.Stop stopping(JobRecord job) {
        Run run = ctx.runs.get(job.id());
        return run == null || run.stop == Run.Stop.CANCEL ? Run.Stop.NONE : run.stop;
    }

    /**
     * The daemon as {@link DecisionRules} sees it at each step of a decision: a job with a run is running (the policy was
     * shown every run), any other as its state says. Runs being stopped (by this decision or before) are on no GPU for
     * the rules, as in the simulator, where a preemption frees the GPUs at once: a job placed there is promised them
     * ({@link #promisedOrRefused}).
     */
    private final class Step implements DecisionRules.World {
        private final Map<Long, JobRecord> jobs;

        Step(Map<Long, JobRecord> jobs) {
            this.jobs = jobs;
        }

        /** The job a decision names, or null when this round does not know it (not a number, not an unfinished job). */
        JobRecord job(String jobId) {
            try {
                return jobs.get(Long.parseLong(jobId));
            } catch (NumberFormatException e) {
                return null;
            }
        }

        @Override public dev.tandem.core.model.Cluster cluster() { return ctx.cluster; }

        @Override public Lifecycle.Phase phase(String jobId) {
            JobRecord job = job(jobId);
            return ctx.runs.get(job.id()) != null ? Lifecycle.Phase.RUNNING : job.state().phase();
        }

        @Override public int gpus(String jobId) { return jobs.get(Long.parseLong(jobId)).gpus(); }

        @Override public String runsAlone(String jobId) { return ctx.runsAlone(jobs.get(Long.parseLong(jobId))); }

        /**
         * The runs on the GPU that are not being stopped, and the jobs promised it: those are on it for the rules, as the
         * simulator's job started there is (at most two jobs per GPU counts them, and one that must run alone takes no
         * partner).
         */
        @Override public List<PlacementRules.Tenant> tenantsOn(int gpu, String exceptJobId) {
            List<PlacementRules.Tenant> on = DecisionApplier.this.tenantsOn(gpu, false);
            if (on.isEmpty() && promised.isEmpty()) return on;
            List<PlacementRules.Tenant> out = new ArrayList<>(on.size() + 1);
            for (PlacementRules.Tenant t : on) if (!t.jobId().equals(exceptJobId)) out.add(t);
            promised.forEach((id, p) -> {
                String key = Long.toString(id);
                if (!p.gpus().contains(gpu) || key.equals(exceptJobId)) return;
                JobRecord job = jobs.get(id);
                String alone = job == null ? null : ctx.runsAlone(job); // as it will run: alone if it must
                out.add(new PlacementRules.Tenant(key, p.gpus(), alone == null ? null : PlacementRules.mustRunAlone(key, alone)));
            });
            return out;
        }

        @Override public String unusable(int gpu) { return ctx.unusable.why(gpu); }
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
     * A step about a job whose run is being stopped (by an earlier step of the decision, or by an earlier decision: the
     * run checkpoints and exits in its own time, and a policy is shown it running until then): the step changes what
     * happens once it has exited. A re-packing policy suspends a guest whose partner's GPUs are not free to join yet and,
     * once later steps have freed them, starts it there: the suspension becomes a move, and the job starts on those GPUs
     * when the run has exited ({@link #migrated}); a job moved and then suspended or moved again stays off GPUs or goes
     * where the last step said (the simulator applies each step at once, so its jobs are always where the last step put
     * them). The job's history says so. A run no decision came to stop (its job ended meanwhile) is left alone.
     */
    private void redirect(JobRecord job, Run.Stop to, List<Integer> gpus, String what, long now) {
        Run run = ctx.runs.get(job.id());
        if (run == null || run.stop == Run.Stop.NONE || run.stop == Run.Stop.CANCEL) return;
        run.stop = to;
        run.migrateTo = List.copyOf(gpus);
        ctx.store.note(job.id(), Context.ACTOR, what, now);
    }

    /** The placement rules every world applies ({@link PlacementRules}), with what only the live world knows. */
    private Optional<String> refuseStart(JobRecord job, List<Integer> gpus) {
        return refuseStart(job, gpus, true);
    }

    /** @param withStopping false: as if the runs the scheduler is stopping had already left their GPUs */
    private Optional<String> refuseStart(JobRecord job, List<Integer> gpus, boolean withStopping) {
        return PlacementRules.refusal(job.gpus(), gpus, ctx.cluster, ctx.runsAlone(job), gpu -> tenantsOn(gpu, withStopping), ctx.unusable::why);
    }

    /**
     * Starts a job the policy migrated, its run now stopped, on the GPUs it was moved to. Runs the same decision stopped
     * may still hold them (a re-packing policy suspends one job and moves another onto its GPU at once): they are then
     * promised to it, as to a job started there, and it starts when they have left, where the simulator moves it at the
     * moment of the decision. Before, such a move was refused and the job queued again (gavel-packed moved jobs onto
     * GPUs being freed at almost every re-packing: 197 of the demo's 200 jobs ran differently from the simulator).
     */
    void migrated(JobRecord job, List<Integer> gpus, SchedulerSnapshot snapshot, long now) {
        String where = ctx.describe(gpus), reason = "migrated to GPU(s) " + where;
        if (promisedOrRefused(job, gpus, reason, "migrate to GPU(s) " + where + ", stays queued", snapshot, now)) return;
        Map<Long, JobRecord> hosts = new java.util.LinkedHashMap<>();
        for (Run r : ctx.runs.on(gpus, null)) ctx.store.job(r.jobId).ifPresent(x -> hosts.put(x.id(), x));
        startOn(job, gpus, reason, snapshot, hosts, now);
    }

    /**
     * Whether a job placed on {@code gpus} must not start there now: the GPUs are promised to it, because only runs the
     * scheduler is stopping hold them (it starts when they have left), or the rules refuse the placement (logged as
     * {@code what}). False: it may start now.
     */
    private boolean promisedOrRefused(JobRecord job, List<Integer> gpus, String reason, String what, SchedulerSnapshot snapshot, long now) {
        Optional<String> refusal = refuseStart(job, gpus);
        if (refusal.isEmpty()) return false;
        if (refuseStart(job, gpus, false).isEmpty()) promised.put(job.id(), new Promised(List.copyOf(gpus), reason, snapshot));
        else rejected(job, what, refusal.get(), now);
        return true;
    }

    /** Jobs waiting for GPUs promised to them ({@link #promised}): no longer the policy's to place. */
    Set<Long> promised() { return promised.keySet(); }

    /** The GPUs promised to each such job. */
    Map<Long, List<Integer>> promisedGpus() {
        Map<Long, List<Integer>> out = new java.util.LinkedHashMap<>();
        promised.forEach((id, p) -> out.put(id, p.gpus()));
        return out;
    }

    /**
     * Starts the promised jobs whose GPUs are free now, each as the policy decided it (a job cancelled meanwhile, or a
     * placement the rules now refuse, is dropped, and the policy decides again).
     */
    void startPromised(Map<Long, JobRecord> jobs, long now) {
        for (var it = promised.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            Promised p = e.getValue();
            boolean stillStopping = p.gpus().stream().anyMatch(g -> ctx.runs.on(g).stream().anyMatch(r -> r.stop != Run.Stop.NONE));
            if (stillStopping) continue;
            it.remove();
            JobRecord job = jobs.get(e.getKey());
            if (job == null || !JobState.QUEUED.contains(job.state())) {
                ctx.due.happened(); // the GPUs are free for the policy to give to someone else
                continue;
            }
            Optional<String> refusal = refuseStart(job, p.gpus());
            if (refusal.isPresent()) {
                rejected(job, "start on GPU(s) " + ctx.describe(p.gpus()), refusal.get(), now);
                ctx.due.happened();
                continue;
            }
            startOn(job, p.gpus(), p.reason(), p.snapshot(), jobs, now);
            ctx.store.job(job.id()).ifPresent(started -> jobs.put(started.id(), started)); // the round goes on with it started
        }
    }

    private List<PlacementRules.Tenant> tenantsOn(int gpu, boolean withStopping) {
        List<Run> on = ctx.runs.on(gpu);
        if (on.isEmpty()) return List.of();
        List<PlacementRules.Tenant> out = new ArrayList<>(on.size());
        for (Run r : on) {
            if (!withStopping && r.stop != Run.Stop.NONE) continue;
            String busy = r.profiling ? "job " + r.jobId + " is being profiled alone" : r.stop != Run.Stop.NONE ? "job " + r.jobId + " is stopping"
                    : r.runsAlone != null ? PlacementRules.mustRunAlone(Long.toString(r.jobId), r.runsAlone) : null;
            out.add(new PlacementRules.Tenant(Long.toString(r.jobId), r.gpus, busy));
        }
        return out;
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
        if (run.stop != Run.Stop.NONE) ctx.executor.stop(job.id());
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

    /** Stops a running job for the policy; it stays on its GPUs (in the ledger) until its process has ended. */
    void stop(JobRecord job, Run.Stop why, List<Integer> migrateTo, String reason, long now) {
        Run run = ctx.runs.get(job.id());
        if (run == null || run.stop != Run.Stop.NONE || !JobState.ON_GPU.contains(job.state())) return;
        if (!ctx.store.transition(job.id(), JobState.ON_GPU, JobState.SUSPENDED, Context.ACTOR, reason,
                new Change().set(Column.QUEUED_AT, now), now)) return;
        ctx.metrics.decision(why == Run.Stop.MIGRATE ? "migrate" : "preempt");
        ctx.decisions.add(now, job.id(), job.owner(), why == Run.Stop.MIGRATE ? "migrated" : "preempted", reason);
        run.stop = why;
        run.migrateTo = List.copyOf(migrateTo);
        ctx.executor.stop(job.id());
    }

}
