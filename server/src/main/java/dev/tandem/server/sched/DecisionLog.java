package dev.tandem.server.sched;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The most recent things the scheduler did to jobs, newest first, for the dashboard: started (alone, profiling,
 * paired), preempted, migrated, alone again, out of memory and split, requeued, succeeded, failed, cancelled. Kept
 * in memory only (the store's job events are the durable history); thread-safe, as the API reads it.
 */
public final class DecisionLog {
    /**
     * One entry; {@code kind} is a short word (paired, oom, ...), {@code text} the reason as the job's history has it,
     * {@code owner} the job's owner (who may see the entry), or null where the scheduler did not have it at hand.
     */
    public record Entry(long at, long jobId, String owner, String kind, String text) {}

    private static final int KEPT = 200;
    private final Deque<Entry> entries = new ArrayDeque<>();

    synchronized void add(long at, long jobId, String owner, String kind, String text) {
        entries.addFirst(new Entry(at, jobId, owner, kind, text));
        if (entries.size() > KEPT) entries.removeLast();
    }

    /** The newest entries first, at most {@code limit}. */
    public synchronized List<Entry> recent(int limit) {
        List<Entry> out = new ArrayList<>(Math.min(limit, entries.size()));
        for (Entry e : entries) {
            if (out.size() == limit) break;
            out.add(e);
        }
        return out;
    }
}
