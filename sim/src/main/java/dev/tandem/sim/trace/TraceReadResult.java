package dev.tandem.sim.trace;

import java.util.List;

/**
 * What a trace reader returns.
 *
 * @param records       the jobs, in submission order (file order among equal times), the earliest at time 0
 * @param skipped       malformed rows left out under {@link BadRows#SKIP}
 * @param ignored       well-formed rows that are not GPU jobs that ran (CPU-only jobs, jobs never started);
 *                      each reader's documentation says which
 * @param firstProblems the messages of the first {@value #MAX_PROBLEMS} skipped rows (file:line: field: problem)
 * @param timeOriginS   the submission time, in the trace's own time base, that became 0 (epoch seconds, UTC, for
 *                      traces with calendar times; the trace's seconds for traces with relative times)
 */
public record TraceReadResult(List<TraceRecord> records, int skipped, int ignored, List<String> firstProblems, double timeOriginS) {
    public static final int MAX_PROBLEMS = 10;

    public TraceReadResult {
        records = List.copyOf(records);
        firstProblems = List.copyOf(firstProblems);
    }
}
