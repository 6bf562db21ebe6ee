package dev.tandem.server.sched;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the policy's snapshot from the store (who waits) and the executor (who holds GPUs): the same
 * {@link SchedulerSnapshot} the simulator builds, so the same policy code decides here.
 */
final class SnapshotBuilder {
    private final Context ctx;

    SnapshotBuilder(Context ctx) {
        this.ctx = ctx;
    }

    /** A waiting job as the policy sees it. */
    PendingJob pending(JobRecord r) {
        Job j = ctx.job(r);
        return new PendingJob(j, r.queuedAt() / 1000.0, r.attainedGpuMs() / 1000.0, remaining(r, j), r.attempts());
    }

    /**
     * @param jobs  every job the round is about by id: the unfinished ones, and finished ones whose processes
     *              are still ending
     * @param queue the jobs the policy may start, in serving order ({@link QueueGate})
     */
    SchedulerSnapshot build(Map<Long, JobRecord> jobs, List<PendingJob> queue, long now) {
        List<RunningJob> running = new ArrayList<>();
        for (Run run : ctx.runs.all()) {
            JobRecord r = jobs.get(run.jobId);
            if (r == null) continue;
            Job j = ctx.job(r);
            double attained = r.attainedGpuMs() / 1000.0 + run.gpus.size() * (now - run.startedAt) / 1000.0;
            double left = Math.max(1, j.totalIterations() - Math.max(0, run.meter.lastIteration()));
            running.add(new RunningJob(j, run.gpus, run.startedAt / 1000.0, run.placedAt / 1000.0, left, attained, run.observed));
        }
        return new SchedulerSnapshot(now / 1000.0, ctx.cluster, Collections.unmodifiableList(queue), Collections.unmodifiableList(running),
                ctx.learned.profiles(), ctx.oracle, ctx.memoryRule, ctx.learned.memoryEstimates(), ctx.learned.oomPairs());
    }

    /** Which stored jobs wait for the policy: queued and with no process still ending. */
    List<JobRecord> queued(List<JobRecord> unfinished) {
        Set<Long> live = ctx.executor.liveJobs();
        List<JobRecord> out = new ArrayList<>();
        for (JobRecord r : unfinished) if (JobState.QUEUED.contains(r.state()) && !live.contains(r.id())) out.add(r);
        return out;
    }

    private static double remaining(JobRecord r, Job j) {
        long done = r.progressIter() == null ? 0 : r.progressIter();
        return Math.max(1, j.totalIterations() - done);
    }
}
