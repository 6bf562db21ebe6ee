package dev.tandem.server.sched;

import java.util.Arrays;
import java.util.Collection;

/**
 * A few job ids (the placed, live or promised jobs beside a long queue), sorted, so that a round asks about each of
 * thousands of waiting jobs without boxing its id for a hash look-up.
 */
record FewIds(long[] sorted) {
    @SafeVarargs
    static FewIds of(Collection<Long>... sets) {
        int size = 0;
        for (Collection<Long> set : sets) size += set.size();
        long[] ids = new long[size];
        int n = 0;
        for (Collection<Long> set : sets) for (long id : set) ids[n++] = id;
        Arrays.sort(ids);
        return new FewIds(ids);
    }

    boolean contains(long id) { return Arrays.binarySearch(sorted, id) >= 0; }
}
