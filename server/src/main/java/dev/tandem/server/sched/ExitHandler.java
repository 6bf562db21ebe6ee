package dev.tandem.server.sched;

import dev.tandem.core.runtime.DecisionCarrier;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.server.exec.ExecEvent;
import dev.tandem.server.exec.ExecException;
import dev.tandem.server.exec.JobCannotRun;
import dev.tandem.server.exec.UnixAccount;
import dev.tandem.server.gpu.GpuSample;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.Change.Column;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Decides what a job's ended run means: success; CUDA out of memory next to a partner (split, requeue the job to
 * run alone, raise its memory estimate, never repeat the pair); a crash (retry up to the limit, then fail); or the
 * end of a stop the scheduler asked for.
 */
final class ExitHandler {
    private static final Logger log = LoggerFactory.getLogger(ExitHandler.class);
    /** memory.used this close to the GPU's size right before a crash counts as out of memory. */
    private static final double MEMORY_FULL = 0.97;
    private static final long MEMORY_LOOKBACK_MS = 5000;

    private final Context ctx;
    private final Profiling profiling;

    ExitHandler(Context ctx, Profiling profiling) {
        this.ctx = ctx;
        this.profiling = profiling;
    }

    /**
     * Takes a run off its GPUs (it ended, or never started); a neighbour left alone is no longer paired. Returns why the
     * scheduler was stopping it, or null.
     */
    DecisionCarrier.Stopping leave(Run run, long now) {
        List<Run> neighbours = ctx.runs.on(run.gpus, run);
        ctx.runs.remove(run);
        DecisionCarrier.Stopping stopped = ctx.carrier.left(run.jobId);
        // GPUs freed by a stop the policy asked for were part of that decision (their new tenants are promised them), as
        // in the simulator; anything else is news to the policy
        if (stopped == null || stopped.why() == DecisionCarrier.Stop.END) ctx.due.happened();
        for (Run n : neighbours) {
            if (!ctx.runs.on(n.gpus, n).isEmpty()) continue;
            n.placed(now, null, null);
            String alone = "alone again: job " + run.jobId + " left GPU(s) " + ctx.describe(n.gpus);
            if (ctx.store.transition(n.jobId, EnumSet.of(JobState.PAIRED), JobState.RUNNING, Context.ACTOR, alone, Change.none(), now)) {
                log.info("job {} {}", n.jobId, alone);
                ctx.decisions.add(now, n.jobId, null, "alone", alone);
            }
        }
        return stopped;
    }

    /** Handles an ended run; returns the GPUs to restart it on when it was stopped to migrate. */
    Optional<List<Integer>> exited(ExecEvent.Exited e, long now) {
        Run run = ctx.runs.get(e.jobId());
        if (run == null) return Optional.empty();
        DecisionCarrier.Stopping stopped = leave(run, now);
        ctx.metrics.runEnded(now - run.startedAt);
        JobRecord job = ctx.store.job(e.jobId()).orElse(null);
        if (job == null) return Optional.empty();
        if (e.leftovers() != null) ctx.store.note(job.id(), Context.ACTOR, e.leftovers(), now);
        if (job.output() != null) handOver(job, run.attempt, now);
        Change ended = new Change().add(Column.ATTAINED_GPU_MS, (now - run.startedAt) * run.gpus.size()).set(Column.EXIT_CODE, e.exitCode())
                .set(Column.PID, null).set(Column.PID_STARTED, null)
                .set(Column.PROGRESS_ITER, run.meter.lastIteration() >= 0 ? run.meter.lastIteration() : null)
                .set(Column.OBSERVED_SPEED, Double.isNaN(run.observed) ? null : run.observed);
        if (!JobState.ON_GPU.contains(job.state())) {
            // the run ended because it was cancelled, preempted, migrated or requeued: its state is already set
            ctx.store.update(job.id(), ended, now);
            return stopped != null && stopped.why() == DecisionCarrier.Stop.MOVE ? Optional.of(stopped.moveTo()) : Optional.empty();
        }
        if (run.profiling) profiling.complete(run, job, now);
        Integer code = e.exitCode();
        if (code != null && code == 0) {
            if (job.exclusive()) learnPeak(run, job.signature(), now);
            // the length it declared against the iterations it reported last (one short of them if it counts from 0)
            if (job.iterations() != null && run.meter.lastIteration() > 0) {
                ctx.learned.lengths().finished(job.iterations(), run.meter.lastIteration());
                ctx.metrics.lengthEstimates(ctx.learned.lengths());
            }
            ctx.store.transition(job.id(), JobState.ON_GPU, JobState.SUCCEEDED, Context.ACTOR, "exited with code 0",
                    ended.set(Column.FINISHED_AT, now), now);
            log.info("job {} succeeded (attempt {}, {} s on GPU(s) {})", job.id(), run.attempt, (now - run.startedAt) / 1000, ctx.describe(run.gpus));
            ctx.decisions.add(now, job.id(), job.owner(), "succeeded", "after " + (now - run.startedAt) / 1000 + " s on GPU(s) " + ctx.describe(run.gpus));
            return Optional.empty();
        }
        boolean oom = code != null && (e.oomInLog() || memoryFull(run, now));
        Long partnerId = run.partner != null ? run.partner : run.lastPartner;
        Optional<JobRecord> partner = partnerId == null ? Optional.empty() : ctx.store.job(partnerId);
        if (oom && partner.isPresent()) {
            splitAfterOom(run, job, partner.get(), ended, now);
            return Optional.empty();
        }
        String why = code == null ? (e.lost() != null ? e.lost() : "its process ended while the daemon was down and left no exit status")
                : describeExit(code) + (oom ? " (CUDA out of memory while alone on GPU(s) " + ctx.describe(run.gpus) + ")" : "");
        if (oom) ctx.metrics.oom();
        ctx.store.update(job.id(), ended, now);
        if (e.overMemoryLimit()) {
            // as Slurm's OUT_OF_MEMORY: the next run would go over the same limit
            failed(job.id(), run.attempt, job.state(), why + " over its host memory limit; not run again, as another run would go over it too", now);
            return Optional.empty();
        }
        crashed(job.id(), run.attempt, job.state(), why, now);
        return Optional.empty();
    }

    /** Copies the job's output for its owner ({@code output}); a failure is noted in its history when known. */
    private void handOver(JobRecord job, int attempt, long now) {
        String target = job.output().replace("%j", String.valueOf(job.id()))
                .replace("%a", job.controls().arrayIndex() == null ? "0" : String.valueOf(job.controls().arrayIndex()));
        UnixAccount owner;
        try {
            owner = ctx.accountOf(job.owner());
        } catch (ExecException ex) {
            ctx.store.note(job.id(), Context.ACTOR, "its output was not copied to " + target + ": " + ex.getMessage(), now);
            return;
        }
        ctx.executor.handOverOutput(job.id(), owner, java.nio.file.Path.of(target)).thenAccept(problem -> problem.ifPresent(p -> {
            log.warn("job {} (attempt {}): {}", job.id(), attempt, p);
            ctx.store.note(job.id(), Context.ACTOR, p, ctx.now()); // the store takes writes from any thread
        }));
    }

    private void splitAfterOom(Run run, JobRecord job, JobRecord partner, Change ended, long now) {
        ctx.metrics.oom();
        long raised = ctx.learned.crashed(job.signature(), ctx.job(job).memoryMiB(), partner.signature(), ctx.job(partner).memoryMiB(),
                ctx.capacity(run.gpus), now);
        String reason = String.format(Locale.ROOT, "CUDA out of memory next to job %d on GPU(s) %s: pair split, requeued to run alone; "
                        + "memory estimate of %s raised to %d MiB and this pair of workloads is never formed again",
                partner.id(), ctx.describe(run.gpus), job.signature().label(), raised);
        log.info("job {}: {}", job.id(), reason);
        ctx.decisions.add(now, job.id(), job.owner(), "oom", reason);
        ctx.store.transition(job.id(), JobState.ON_GPU, JobState.PENDING, Context.ACTOR, reason,
                ended.set(Column.EXCLUSIVE, true).set(Column.QUEUED_AT, now), now);
    }

    /** A run that crashed or could not start: another attempt while the limit allows, else failed. */
    void crashed(long jobId, int attempt, JobState from, String why, long now) {
        if (attempt < ctx.cfg.maxAttempts()) {
            ctx.metrics.retry();
            ctx.store.transition(jobId, EnumSet.of(from), JobState.PENDING, Context.ACTOR,
                    why + "; attempt " + attempt + " of " + ctx.cfg.maxAttempts() + ", requeued", new Change().set(Column.QUEUED_AT, now), now);
            log.info("job {} requeued: {} (attempt {} of {})", jobId, why, attempt, ctx.cfg.maxAttempts());
            ctx.decisions.add(now, jobId, null, "requeued", why + " (attempt " + attempt + " of " + ctx.cfg.maxAttempts() + ")");
        } else {
            failed(jobId, attempt, from, why, now);
        }
        ctx.due.happened();
    }

    /**
     * A run the executor could not start: a job that no attempt could start ({@link JobCannotRun})
     * fails now, any other failure counts as a crashed attempt ({@link #crashed}).
     */
    void startFailed(long jobId, int attempt, JobState from, ExecException e, long now) {
        if (!(e instanceof JobCannotRun)) {
            crashed(jobId, attempt, from, e.getMessage(), now);
            return;
        }
        failed(jobId, attempt, from, e.getMessage() + "; not tried again, as every attempt would fail alike", now);
        ctx.due.happened();
    }

    private void failed(long jobId, int attempt, JobState from, String why, long now) {
        ctx.store.transition(jobId, EnumSet.of(from), JobState.FAILED, Context.ACTOR,
                why + "; failed after " + attempt + " attempt(s)", new Change().set(Column.FINISHED_AT, now), now);
        log.info("job {} failed: {} (after {} attempt(s))", jobId, why, attempt);
        ctx.decisions.add(now, jobId, null, "failed", why + " (after " + attempt + " attempt(s))");
        ctx.due.happened();
    }

    /** After a run alone, the memory it really used is the least it may be budgeted from now on. */
    private void learnPeak(Run run, WorkloadSignature sig, long now) {
        double peak = ctx.indices(run.gpus).stream().flatMap(g -> ctx.monitor.smiSince(g, run.startedAt).stream())
                .mapToDouble(GpuSample::memoryUsedMiB).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
        if (!Double.isNaN(peak) && peak > 0) ctx.learned.raiseMemoryEstimate(sig, (long) Math.ceil(peak), now);
    }

    private boolean memoryFull(Run run, long now) {
        for (int g : run.gpus) {
            long total = ctx.devices.get(g).memoryMiB();
            for (GpuSample s : ctx.monitor.smiSince(ctx.devices.get(g).index(), now - MEMORY_LOOKBACK_MS)) {
                if (s.memoryUsedMiB() >= MEMORY_FULL * total) return true;
            }
        }
        return false;
    }

    static String describeExit(int code) {
        return switch (code) {
            case 126 -> "exited with code 126 (command not executable)";
            case 127 -> "exited with code 127 (command not found)";
            default -> code > 128 && code < 160 ? "exited with code " + code + " (killed by signal " + (code - 128) + ")" : "exited with code " + code;
        };
    }
}
