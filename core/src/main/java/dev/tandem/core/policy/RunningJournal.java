package dev.tandem.core.policy;

import dev.tandem.core.model.Job;

/**
 * The world's record of which jobs started and stopped running (ended, crashed, were suspended or moved), in order.
 * A policy that keeps the running jobs in its own order (SRTF's and Tiresias' ranking) follows these changes and asks
 * the world for the view of each job that started ({@link Occupancy#job}), instead of building a view of every
 * running job every round. A job that moves between GPUs stops and starts again.
 * <p>A world that keeps one also promises that what it shows of a job while the job keeps running changes only as
 * the job runs: its remaining iterations never rise, and its profile stays as it was (a job whose work grows, by a
 * restart's overhead or a crash, stops and starts again). SRTF's ranking relies on it to key again only the few running
 * jobs whose old remaining time could matter. The one exception is told: a job of unknown length (it declared none, or
 * it outran what it declared) is shown as needing as long as it has run, which grows; the world writes every such job
 * as {@link #reshown} at every decision, and a reader keys it again there, keeping its place among jobs that started
 * before and after it.
 */
public final class RunningJournal extends Journal<Job> {
    public RunningJournal(int capacity) { super(capacity); }

    public void started(Job job) { record(job, true); }

    public void stopped(Job job) { record(job, false); }

    /** The job runs on where it was, but what it shows may have risen since the last decision: its length is unknown. */
    public void reshown(Job job) { recordUpdate(job); }
}
