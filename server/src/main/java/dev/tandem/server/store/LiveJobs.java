package dev.tandem.server.store;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The jobs that have not finished, and how many jobs are in each state, kept in memory so that the scheduler's
 * rounds, the dashboard and the API's reads of the queue never query the database, and what the {@link Store} checks
 * every write of such a job against (with the writes of the running batch not yet committed). The store writes through
 * it: after each commit that touched a job, while it still holds the store's lock, it hands over the job's row as
 * committed, so this view changes in commit order and never shows what the database does not hold. Reads take no
 * lock and see each job either before or after a change, never half of one.
 */
final class LiveJobs {
    private final ConcurrentSkipListMap<Long, JobRecord> unfinished = new ConcurrentSkipListMap<>();
    private final AtomicLongArray counts = new AtomicLongArray(JobState.values().length);

    /** Starts from what the database holds (at open). */
    void load(List<JobRecord> unfinishedJobs, Map<JobState, Long> countByState) {
        unfinished.clear();
        for (JobRecord r : unfinishedJobs) unfinished.put(r.id(), r);
        for (JobState s : JobState.values()) counts.set(s.ordinal(), countByState.getOrDefault(s, 0L));
    }

    /** A job was inserted (pending, or held pending). */
    void inserted(JobRecord r) {
        unfinished.put(r.id(), r);
        counts.incrementAndGet(r.state().ordinal());
    }

    /** A job's row changed; {@code from} is its state before the change (the same when the state did not change). */
    void changed(JobState from, JobRecord r) {
        if (from != r.state()) {
            counts.decrementAndGet(from.ordinal());
            counts.incrementAndGet(r.state().ordinal());
        }
        if (r.state().terminal()) unfinished.remove(r.id());
        else unfinished.put(r.id(), r);
    }

    /** Every job that has not finished, in submission (id) order. */
    List<JobRecord> unfinished() {
        // one pass: copying the map's values as a collection makes two more copies of the list (10,000 jobs each round);
        // sized by the counts, which a concurrent change may have moved on (a hint only)
        long expected = 0;
        for (JobState s : JobState.values()) if (!s.terminal()) expected += counts.get(s.ordinal());
        List<JobRecord> out = new ArrayList<>((int) expected + 16);
        for (JobRecord r : unfinished.values()) out.add(r);
        return out;
    }

    /** The unfinished jobs with an id above {@code afterId}, in id order: a view, not a copy. */
    java.util.Collection<JobRecord> unfinishedAfter(long afterId) {
        return unfinished.tailMap(afterId, false).values();
    }

    /** An unfinished job; empty for a finished or unknown one (which the database has). */
    Optional<JobRecord> unfinished(long id) {
        return Optional.ofNullable(unfinished.get(id));
    }

    Map<JobState, Long> counts() {
        Map<JobState, Long> m = new EnumMap<>(JobState.class);
        for (JobState s : JobState.values()) m.put(s, counts.get(s.ordinal()));
        return m;
    }
}
