package dev.tandem.server.sched;

import dev.tandem.server.gpu.GpuReadings;
import dev.tandem.server.gpu.Profiler;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.ProfileRecord;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The profiling phase: a job of a new workload runs alone for the profile time, then its profile is stored
 * (and reused for every later job of the same signature) and the job goes on running, now pairable. A job that ends
 * before is profiled from what was measured until then. A workload with a known profile skips the phase and is
 * measured the first time one of its runs is alone long enough.
 */
final class Profiling {
    private final Context ctx;

    Profiling(Context ctx) {
        this.ctx = ctx;
    }

    /** Ends the profiling of runs whose time is up; measures alone what was known only from elsewhere. */
    void check(Map<Long, JobRecord> jobs, long now) {
        measureKnownAlone(jobs, now);
        for (Run run : ctx.runs.all()) {
            if (!run.profiling || now - run.profileSince < ctx.cfg.profileMs()) continue;
            JobRecord job = jobs.get(run.jobId);
            if (job == null) continue;
            GpuReadings readings = readings(run, run.profileSince);
            if (!readings.complete()) continue; // the Slurm job step is still sampling (it may have started late)
            Optional<ProfileRecord> p = measure(run, job, readings, run.profileSince, now);
            if (lookAgainLater(p, job, readings, run.profileSince, now)) continue;
            p.ifPresent(ctx.learned::saveProfile);
            // without readings at all the job runs on unprofiled: alone, since nothing predicts a pair
            run.profiling = false;
            String reason = p.map(Profiling::describe).orElse("profiling gave no GPU readings; running alone unprofiled");
            ctx.store.transition(run.jobId, EnumSet.of(JobState.PROFILING), JobState.RUNNING, Context.ACTOR, reason, Change.none(), now);
            ctx.due.happened();
        }
    }

    /**
     * A job of a workload known only from {@code --known-profiles} shares at once, but co-located speeds can be judged
     * only against a solo speed measured here: once a run of it has been alone for the profile time, its readings and
     * speed over that stretch become the workload's profile (once per run; the job is not held back meanwhile).
     */
    private void measureKnownAlone(Map<Long, JobRecord> jobs, long now) {
        for (Run run : ctx.runs.all()) {
            if (run.profiling || run.measuredAlone || run.partner != null || ctx.carrier.stopping(run.jobId) != null) continue;
            long since = Math.max(run.placedAt, run.profileSince);
            if (now - since < ctx.cfg.profileMs() || ctx.learned.soloSpeedMeasured(run.signature)) continue;
            JobRecord job = jobs.get(run.jobId);
            if (job == null) continue;
            GpuReadings readings = readings(run, since);
            if (!readings.complete()) continue;
            Optional<ProfileRecord> p = measure(run, job, readings, since, now);
            if (lookAgainLater(p, job, readings, since, now)) continue; // as a profiling run is
            p.ifPresent(ctx.learned::saveProfile);
            run.measuredAlone = true;
            p.ifPresent(profile -> {
                ctx.store.note(job.id(), Context.ACTOR, "measured alone: " + describe(profile), now);
                ctx.due.happened();
            });
        }
    }

    /** Builds and stores the run's profile from what was measured so far, if that is enough (its run has ended). */
    Optional<ProfileRecord> complete(Run run, JobRecord job, long now) {
        Optional<ProfileRecord> p = measure(run, job, readings(run, run.profileSince), run.profileSince, now);
        p.ifPresent(ctx.learned::saveProfile);
        return p;
    }

    /** The profile of what was measured since {@code since}, not stored; empty without enough GPU readings. */
    private Optional<ProfileRecord> measure(Run run, JobRecord job, GpuReadings readings, long since, long now) {
        double speed = ctx.time.perPolicySecond(run.meter.rateSince(since, 1)); // per cluster second, as the policy plans
        String gpuName = ctx.devices.get(run.gpus.getFirst()).name();
        return Profiler.profile(job.signature(), job.id(), run.gpus.size(), readings, gpuName, speed, now);
    }

    /**
     * Whether a stretch measured since {@code since} gave too little yet and is young enough to be looked at again as
     * it grows, up to three profile times. Too little is no readings (nvidia-smi silent), no progress line from a job
     * that declared its length ({@link #tooLittle}: a slow start; importing PyTorch alone outlasted a 5 s profile time
     * on this loaded 2-core machine, and the workload's solo speed was stored as unknown), or no reading yet from the
     * DCGM that samples here (dcgmi started late on a loaded host, and a CI run's profile was stored without SM
     * activity).
     */
    private boolean lookAgainLater(Optional<ProfileRecord> p, JobRecord job, GpuReadings readings, long since, long now) {
        return (tooLittle(p, job) || readings.dcgmYetToCome()) && now - since < 3 * ctx.cfg.profileMs();
    }

    /**
     * No profile yet, or one without the speed of a job that declared its length (no progress line in the stretch yet).
     * A job submitted without {@code --iterations} may never print one: it is not held alone longer for it.
     */
    private static boolean tooLittle(Optional<ProfileRecord> p, JobRecord job) {
        return p.isEmpty() || (job.iterations() != null && !p.get().speedMeasured());
    }

    /** Taken inside the run by the executor where it can (Slurm), else by this machine's GPU monitor. */
    private GpuReadings readings(Run run, long since) {
        List<Integer> gpus = ctx.indices(run.gpus);
        return ctx.executor.jobReadings(run.jobId, run.attempt, gpus).orElseGet(() -> ctx.monitor.readings(gpus, since));
    }

    static String describe(ProfileRecord r) {
        var p = r.profile();
        return String.format(Locale.ROOT, "profiled %s: GPU util %.0f%%, memory util %.0f%%, peak %.0f MiB, %s (%d readings)",
                p.signature().label(), p.gpuUtil(), p.gmemUtil(), p.gmemMiB(),
                r.speedMeasured() ? String.format(Locale.ROOT, "%.2f it/s", p.soloSpeed()) : "no progress lines", r.samples());
    }
}
