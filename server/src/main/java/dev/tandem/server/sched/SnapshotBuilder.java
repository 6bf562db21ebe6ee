package dev.tandem.server.sched;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.core.runtime.PlacedOccupancy;
import dev.tandem.core.runtime.Placements;
import dev.tandem.core.runtime.WaitingQueue;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the policy's snapshot from the store (who waits) and the executor (who holds GPUs): the same
 * {@link SchedulerSnapshot} the simulator builds, so the same policy code decides here, with the same journals of the
 * queue's changes and of the runs' ({@link RunJournals}). Times and speeds are in the cluster's seconds ({@link PolicyTime}).
 */
final class SnapshotBuilder {
    private final Context ctx;
    /** A waiting job's view, built from this record at this version of what was learned. */
    private record Viewed(JobRecord record, long learned, PendingJob pending) {}

    /**
     * The views of the last round, kept while a job's record and what was learned stay the same: the store hands out
     * the same record until the job changes, and a policy may keep state per waiting job across rounds (tandem's
     * queue order does), which a new object each round would throw away.
     */
    private final RoundCache<Viewed> views = new RoundCache<>();
    /**
     * The queue the policy was handed, kept across rounds in submission (id) order with its journal of changes, as the
     * simulator keeps its queue: a policy that follows the journal (tandem's shortest-first index) need not pass over
     * thousands of waiting jobs each round. Rounds whose queue rules reorder the queue hand no journal.
     */
    private final WaitingQueue given = new WaitingQueue(PendingJob::bySubmission, 1 << 16);

    /** Runs starting, stopping and coming to be alone, as the simulator journals its jobs: see {@link RunJournals}. */
    private final RunJournals journals = new RunJournals();

    SnapshotBuilder(Context ctx) {
        this.ctx = ctx;
        ctx.runs.listen(journals);
    }

    /** A waiting job as the policy sees it: the same object as last round when nothing about it changed. */
    PendingJob pending(JobRecord r) {
        Viewed v = views.get(r.id());
        if (v == null || v.record() != r || v.learned() != ctx.learned.version()) {
            Job j = ctx.job(r);
            double attained = ctx.time.duration(r.attainedGpuMs());
            long done = r.progressIter() == null ? 0 : r.progressIter();
            boolean known = lengthKnown(r, done);
            double remaining = known ? Math.max(1, j.totalIterations() - done) + resumeWork(r) : guess(r, attained);
            v = new Viewed(r, ctx.learned.version(), new PendingJob(j, ctx.time.seconds(r.queuedAt()), attained, remaining, r.attempts(), known, r.id()));
        }
        views.keep(r.id(), v);
        return v.pending();
    }

    /**
     * @param jobs  every job the round is about by id: the unfinished ones, and finished ones whose processes
     *              are still ending
     * @param queue the jobs the policy may start, in serving order ({@link QueueGate})
     */
    SchedulerSnapshot build(Map<Long, JobRecord> jobs, List<PendingJob> queue, long now) {
        views.endRound(); // those not asked for this round (the job started or left) are forgotten
        List<RunningJob> running = new ArrayList<>();
        Map<Long, RunningJob> byRun = new java.util.HashMap<>();
        List<Run> ofUnknownLength = new ArrayList<>();
        // in the order of their latest placement, the runtime's ledger's, as the simulator hands its running jobs: a
        // policy that takes the first of equally good choices then takes the same one in both worlds
        for (Run run : ctx.runs.all()) {
            JobRecord r = jobs.get(run.jobId);
            if (r == null) continue;
            Job j = ctx.job(r);
            double attained = ctx.time.duration(r.attainedGpuMs() + run.gpus.size() * (now - run.startedAt));
            long done = run.meter.position();
            boolean known = lengthKnown(r, done);
            double left = known ? Math.max(1, j.totalIterations() - done) : guess(r, attained);
            RunningJob view = new RunningJob(j, run.gpus, ctx.time.seconds(run.startedAt), ctx.time.seconds(run.placedAt), left, attained, run.observed, known);
            running.add(view);
            byRun.put(run.jobId, view);
            if (!known) ofUnknownLength.add(run);
        }
        journals.write(ctx.learned.version(), byRun, ofUnknownLength, id -> ctx.store.job(id).map(ctx::job).orElse(null));
        Map<String, String> runsAlone = new RunsAlone(jobs);
        boolean followed = given.becomes(queue);
        return new SchedulerSnapshot(ctx.time.seconds(now), ctx.cluster, Collections.unmodifiableList(queue), Collections.unmodifiableList(running),
                ctx.learned.profiles(), ctx.oracle, ctx.memoryRule, ctx.learned.memoryEstimates(), ctx.learned.oomPairs(), new RunsOccupancy(ctx.runs, byRun, running))
                .withRunsAlone(runsAlone).withQueueJournal(followed ? given.journal() : null)
                .withRunningJournal(journals.running()).withSoleTenantJournal(journals.alone())
                .withLengthEstimates(ctx.learned.lengths());
    }

    /**
     * The runtime's ledger of runs ({@link Context#runs}) as the policy reads it, each run shown as this round's view of
     * it: the same counts and lone jobs the simulator hands its policy, kept as runs come and go, with the GPUs busy
     * with someone else's work marked there ({@link UnusableGpus}). Every measured run counts as newly measured: an
     * introspecting policy judges a pair again each round.
     */
    private static final class RunsOccupancy extends PlacedOccupancy<Long, Run> {
        private final Map<Long, RunningJob> views;
        private final List<RunningJob> measured = new ArrayList<>();

        RunsOccupancy(Placements<Long, Run> runs, Map<Long, RunningJob> views, List<RunningJob> running) {
            super(runs);
            this.views = views;
            for (RunningJob r : running) if (!Double.isNaN(r.observedSpeed())) measured.add(r);
        }

        @Override protected RunningJob view(Run run) { return views.get(run.jobId); }

        @Override protected Long key(String id) {
            try {
                return Long.parseLong(id);
            } catch (NumberFormatException e) {
                return null;
            }
        }

        @Override protected String id(Long key) { return key.toString(); }

        @Override public java.util.Collection<RunningJob> newlyObserved() { return measured; }
    }

    /**
     * Why each job must run alone ({@link Context#runsAlone}), by job id, worked out when the policy asks: a policy asks
     * about the jobs it considers, and working it out for every unfinished job each round (a profile look-up each) was
     * a thirteenth of a round with 10,000 jobs queued. The jobs and what was learned do not change during the round.
     */
    private final class RunsAlone extends java.util.AbstractMap<String, String> {
        private final Map<Long, JobRecord> jobs;

        RunsAlone(Map<Long, JobRecord> jobs) {
            this.jobs = jobs;
        }

        @Override public String get(Object id) {
            if (!(id instanceof String s)) return null;
            long jobId;
            try {
                jobId = Long.parseLong(s);
            } catch (NumberFormatException e) {
                return null;
            }
            JobRecord r = jobs.get(jobId);
            return r == null ? null : ctx.runsAlone(r);
        }

        @Override public boolean containsKey(Object id) { return get(id) != null; }

        @Override public boolean isEmpty() { return false; } // not known without asking about every job: get answers

        @Override public Set<Map.Entry<String, String>> entrySet() {
            Map<String, String> all = new java.util.LinkedHashMap<>();
            for (JobRecord r : jobs.values()) {
                String why = ctx.runsAlone(r);
                if (why != null) all.put(String.valueOf(r.id()), why);
            }
            return all.entrySet();
        }
    }

    /** Which stored jobs wait for the policy: queued, with no process still ending and no GPUs promised to them. */
    List<JobRecord> queued(List<JobRecord> unfinished, Set<Long> promised) {
        FewIds excluded = FewIds.of(ctx.executor.liveJobs(), promised);
        List<JobRecord> out = new ArrayList<>(unfinished.size());
        for (JobRecord r : unfinished) if (JobState.QUEUED.contains(r.state()) && !excluded.contains(r.id())) out.add(r);
        return out;
    }

    /**
     * The work a waiting job that ran before will repeat when it resumes, in iterations: part of what it still needs, as
     * the simulator counts it from the moment it stops (once resumed, its reported progress shows it).
     */
    private double resumeWork(JobRecord r) {
        double overhead = ctx.executor.resumeOverheadSeconds();
        if (overhead <= 0 || r.attempts() == 0) return 0;
        return ctx.learned.profile(r.signature()).map(p -> overhead * p.soloSpeed()).orElse(0.0);
    }

    /**
     * The iterations a job submitted without its length is taken to have left, for policies that read a number: as
     * many as it has run so far (at least {@link SchedulerSnapshot#UNKNOWN_LENGTH_FLOOR_SECONDS}) at its solo speed
     * ({@link SchedulerSnapshot#unknownLengthIterations}), as the simulator shows a job of unknown length. (One
     * iteration, as before, put every such job first in line under every shortest-first policy, and let it suspend jobs
     * whose owners gave their lengths.)
     */
    private double guess(JobRecord r, double attainedGpuSeconds) {
        return ctx.learned.profile(r.signature()).map(p -> SchedulerSnapshot.unknownLengthIterations(attainedGpuSeconds, r.gpus(), p.soloSpeed()))
                .orElse(1.0);
    }

    /**
     * Whether the policy is told the job's length: it gave one ({@code --iterations}) and has not run past it (at its
     * last iteration it looks one iteration from its end until it exits). A job that reports more iterations than it
     * declared has shown its length wrong, and is then taken as one of unknown
     * length ({@link #guess}), as the simulator takes a job that outran its estimate: before, it looked one iteration
     * from its end for as long as it ran, the shortest job there is to every shortest-first policy.
     */
    private static boolean lengthKnown(JobRecord r, long done) {
        return r.iterations() != null && done <= r.iterations();
    }
}
