package dev.tandem.server.sched;

import dev.tandem.server.store.JobRecord;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Every job one scheduling round is about, by id: the unfinished jobs as the store held them when the round began
 * (in id order), then finished jobs whose runs are still ending, and the records the round itself changed. The
 * unfinished jobs are looked up by a binary search over their ids rather than hashed into a map: with 10,000 jobs
 * queued, building that map was a tenth of every round, while a round looks up only the jobs it works on.
 */
final class RoundJobs extends AbstractMap<Long, JobRecord> {
    private final long[] ids;
    private final JobRecord[] records;
    /** Jobs not among the unfinished ones at the round's start, in the order they were added. */
    private final Map<Long, JobRecord> others = new LinkedHashMap<>();

    /** @param unfinished the unfinished jobs in id order, as {@code Store.unfinishedJobs} hands them */
    RoundJobs(List<JobRecord> unfinished) {
        records = unfinished.toArray(new JobRecord[0]);
        ids = new long[records.length];
        for (int i = 0; i < records.length; i++) {
            ids[i] = records[i].id();
            if (i > 0 && ids[i] <= ids[i - 1]) throw new IllegalArgumentException("jobs not in id order: " + ids[i - 1] + " then " + ids[i]);
        }
    }

    @Override public JobRecord get(Object key) {
        if (!(key instanceof Long id)) return null;
        int i = Arrays.binarySearch(ids, id);
        return i >= 0 ? records[i] : others.get(id);
    }

    @Override public boolean containsKey(Object key) { return get(key) != null; }

    /** Adds a job or replaces its record (a record is never null). */
    @Override public JobRecord put(Long id, JobRecord r) {
        if (r == null || r.id() != id) throw new IllegalArgumentException("record of job " + (r == null ? null : r.id()) + " put as job " + id);
        int i = Arrays.binarySearch(ids, id);
        if (i < 0) return others.put(id, r);
        JobRecord old = records[i];
        records[i] = r;
        return old;
    }

    @Override public int size() { return records.length + others.size(); }

    @Override public Set<Entry<Long, JobRecord>> entrySet() {
        return new AbstractSet<>() {
            @Override public int size() { return RoundJobs.this.size(); }

            @Override public Iterator<Entry<Long, JobRecord>> iterator() {
                Iterator<Entry<Long, JobRecord>> rest = others.entrySet().iterator();
                return new Iterator<>() {
                    private int next;

                    @Override public boolean hasNext() { return next < records.length || rest.hasNext(); }

                    @Override public Entry<Long, JobRecord> next() {
                        if (next < records.length) {
                            int i = next++;
                            return Map.entry(ids[i], records[i]);
                        }
                        if (!rest.hasNext()) throw new NoSuchElementException();
                        return rest.next();
                    }
                };
            }
        };
    }
}
