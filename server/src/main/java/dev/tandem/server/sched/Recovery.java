package dev.tandem.server.sched;

import dev.tandem.core.runtime.DecisionCarrier;
import dev.tandem.core.runtime.OutOfMemoryRule;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.Change.Column;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Start-up after a crash or restart: every job that had a process is re-adopted if that process is still the
 * one we started (pid and start time), or ended meanwhile (its exit status file tells how, and the next poll
 * reports it); a job whose process is gone without trace is requeued. Processes of jobs that were being
 * stopped or cancelled are stopped again.
 */
final class Recovery {
    private static final Logger log = LoggerFactory.getLogger(Recovery.class);

    private final Context ctx;

    Recovery(Context ctx) {
        this.ctx = ctx;
    }

    void run(long now) {
        int adopted = 0, requeued = 0;
        for (JobRecord r : ctx.store.jobsWithProcess()) {
            List<Integer> gpus = ctx.clusterIds(r.gpuIds());
            boolean onGpu = JobState.ON_GPU.contains(r.state());
            boolean alive = gpus != null && !gpus.isEmpty() && ctx.executor.adopt(r.id(), r.attempts(), r.pid(), r.pidStarted());
            if (!alive) {
                Change clear = new Change().set(Column.PID, null).set(Column.PID_STARTED, null);
                if (onGpu) {
                    ctx.store.transition(r.id(), JobState.ON_GPU, JobState.PENDING, Context.ACTOR,
                            "its run was gone when the daemon restarted; requeued", clear.set(Column.QUEUED_AT, now), now);
                    requeued++;
                } else {
                    ctx.store.update(r.id(), clear, now);
                }
                continue;
            }
            Run run = new Run(r.id(), r.signature(), r.attempts(), gpus, r.startedAt() == null ? now : r.startedAt());
            run.profiling = r.state() == JobState.PROFILING;
            run.runsAlone = r.exclusive() ? OutOfMemoryRule.RUNS_ALONE : null;
            run.profileSince = now;
            if (!onGpu) {
                ctx.carrier.beganStopping(r.id(), r.state() == JobState.CANCELLED ? DecisionCarrier.Stop.END : DecisionCarrier.Stop.SUSPEND);
                ctx.executor.stop(r.id());
            }
            if (!ctx.runs.adopt(run, gpus)) {
                log.warn("recovery: job {}'s process runs on GPU(s) {} beside {} other job(s): more than a GPU takes; nothing more is placed there until they end",
                        r.id(), ctx.describe(gpus), ctx.runs.on(gpus, run).size());
            }
            adopted++;
        }
        for (Run run : ctx.runs.all()) {
            List<Run> n = ctx.runs.on(run.gpus, run);
            run.placed(now, n.isEmpty() ? null : n.getFirst().jobId, null);
        }
        if (adopted + requeued > 0) log.info("recovery: {} job process(es) re-adopted, {} job(s) requeued", adopted, requeued);
    }
}
