package dev.tandem.core.policy;

import dev.tandem.core.model.Job;

/**
 * The world's record of which running jobs came to run alone on their GPUs and which stopped doing so (a partner
 * joined, or the job stopped), in order: the hosts a packing policy may pair a waiting job with
 * ({@link Occupancy#soleTenantJobs()}, whose order is the order jobs came to run alone). A packing policy keeps its
 * classes of hosts across rounds by following these changes instead of regrouping every lone job every round.
 */
public final class SoleTenantJournal extends Journal<Job> {
    public SoleTenantJournal(int capacity) { super(capacity); }

    public void alone(Job job) { record(job, true); }

    public void notAlone(Job job) { record(job, false); }
}
