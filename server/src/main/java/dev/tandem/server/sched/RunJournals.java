package dev.tandem.server.sched;

import dev.tandem.core.model.Job;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.RunningJournal;
import dev.tandem.core.policy.SoleTenantJournal;
import dev.tandem.core.runtime.Placements;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The daemon's journals of its runs starting and stopping and of runs coming to be alone on their GPUs, as the
 * simulator keeps them, so that policies that keep their own indexes of the running jobs (srtf's and tiresias' order,
 * tandem's longest running job) and of the hosts (the packing policies' classes) follow the changes here too instead
 * of rebuilding those indexes every round. The ledger ({@link Context#runs}) tells of each change as it happens, between
 * rounds; each round writes them into the journals in that order, with the round's view of each job.
 *
 * <p>A policy that follows a {@link RunningJournal} relies on a running job's view changing only as the job runs. Here
 * two things break that, and each is written so that it holds again: what was learned (a profile, a memory estimate)
 * changes the views of jobs already running, so a change of it starts new journals (a policy handed a journal other than
 * the one it followed rebuilds its index once); and a run of unknown length (it declared none, or it outran what it
 * declared) is taken to need as long as it has run, which grows, so it is written as reshown every round (its reader
 * keys it again then, as the simulator's do).
 */
final class RunJournals implements Placements.Listener<Run> {
    private static final int CAPACITY = 1 << 16;

    private enum Kind { PLACED, REMOVED, ALONE, NOT_ALONE }

    private record Change(Run run, Kind kind) {}

    /** The ledger's changes since the last round, in order. */
    private final List<Change> pending = new ArrayList<>();
    private RunningJournal running;
    private SoleTenantJournal alone;
    /** The version of what was learned the journals' views were made at; none yet. */
    private long learnedAt = Long.MIN_VALUE;
    /** Each run as the last round showed it: for a run that has left the ledger since. */
    private Map<Long, RunningJob> shown = Map.of();

    @Override public void placed(Run run) { pending.add(new Change(run, Kind.PLACED)); }

    @Override public void removed(Run run) { pending.add(new Change(run, Kind.REMOVED)); }

    @Override public void alone(Run run) { pending.add(new Change(run, Kind.ALONE)); }

    @Override public void notAlone(Run run) { pending.add(new Change(run, Kind.NOT_ALONE)); }

    /**
     * Writes the ledger's changes since the last round into the journals, or starts new ones when what was learned has
     * changed (their readers then rebuild from the snapshot).
     *
     * @param learned    the version of what was learned this round's views are made at
     * @param thisRound  this round's view of each run in the ledger, by job id
     * @param unknown    the runs this round shows as of unknown length, in ledger order
     * @param recordless a job's view for a run that has left the ledger and was never shown, or null if none can be made
     */
    void write(long learned, Map<Long, RunningJob> thisRound, List<Run> unknown, LongFunction<Job> recordless) {
        if (learned != learnedAt) {
            running = new RunningJournal(CAPACITY);
            alone = new SoleTenantJournal(CAPACITY);
            learnedAt = learned;
        } else {
            for (Change c : pending) {
                Job job = shownJob(c.run().jobId, thisRound);
                if (job == null) job = recordless.apply(c.run().jobId);
                if (job == null) continue; // nothing to show of it: a reader finds it gone from the ledger anyway
                switch (c.kind()) {
                    case PLACED -> running.started(job);
                    case REMOVED -> running.stopped(job);
                    case ALONE -> alone.alone(job);
                    case NOT_ALONE -> alone.notAlone(job);
                }
            }
            for (Run run : unknown) running.reshown(thisRound.get(run.jobId).job());
        }
        pending.clear();
        shown = thisRound;
    }

    /** The job of a run as this round shows it, else as the last round did, else null. */
    private Job shownJob(long jobId, Map<Long, RunningJob> thisRound) {
        RunningJob r = thisRound.get(jobId);
        if (r == null) r = shown.get(jobId);
        return r == null ? null : r.job();
    }

    RunningJournal running() { return running; }

    SoleTenantJournal alone() { return alone; }
}
