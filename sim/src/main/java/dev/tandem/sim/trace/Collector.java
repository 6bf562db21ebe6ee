package dev.tandem.sim.trace;

import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Gathers one reader's records, applies the {@link BadRows} policy, and puts the result on a common time base. */
final class Collector {
    private final DataSource source;
    private final BadRows mode;
    private final List<TraceRecord> records = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private final Map<String, String> strings = new HashMap<>();
    private int skipped;
    private int ignored;

    Collector(DataSource source, BadRows mode) {
        this.source = source;
        this.mode = mode == null ? BadRows.REJECT : mode;
    }

    /** Converts one row; a bad row throws under REJECT and is counted under SKIP. */
    void row(long line, Runnable convert) {
        try {
            convert.run();
        } catch (DataFormatException e) {
            bad(e);
        } catch (IllegalArgumentException e) { // a domain check the reader did not anticipate
            bad(new DataFormatException(source.name(), line, null, e.getMessage()));
        }
    }

    private void bad(DataFormatException e) {
        if (mode == BadRows.REJECT) throw e;
        skipped++;
        if (problems.size() < TraceReadResult.MAX_PROBLEMS) problems.add(e.getMessage());
    }

    void add(TraceRecord r) { records.add(r); }

    /** A well-formed row that is not a GPU job that ran. */
    void ignore() { ignored++; }

    /** Users and VCs repeat across millions of rows; keep one copy of each. */
    String shared(String s) { return strings.computeIfAbsent(s, k -> k); }

    TraceReadResult result() {
        double origin = records.stream().mapToDouble(TraceRecord::submitTime).min().orElse(0);
        records.sort(Comparator.comparingDouble(TraceRecord::submitTime)); // stable: file order among equal times
        records.replaceAll(r -> r.shifted(origin));
        return new TraceReadResult(records, skipped, ignored, problems, origin);
    }
}
