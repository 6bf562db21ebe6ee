package dev.tandem.core.policy;

import dev.tandem.core.model.Job;

/**
 * The world's record of which jobs started and stopped running (ended, crashed, were suspended or moved), in order.
 * A policy that keeps the running jobs in its own order (SRTF's and Tiresias' ranking) follows these changes and asks
 * the world for the view of each job that started ({@link Occupancy#job}), instead of building a view of every
 * running job every round. A job that moves between GPUs stops and starts again.
 */
public final class RunningJournal extends Journal<Job> {
    public RunningJournal(int capacity) { super(capacity); }

    public void started(Job job) { record(job, true); }

    public void stopped(Job job) { record(job, false); }
}
