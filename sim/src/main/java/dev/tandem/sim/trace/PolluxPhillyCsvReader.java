package dev.tandem.sim.trace;

import dev.tandem.data.Csv;
import dev.tandem.data.DataSource;

import java.util.List;

/**
 * Reads the Philly jobs as the Pollux (OSDI'21) artifact reprocessed them ({@code philly_jobs.csv}:
 * {@code timestamp,duration,num_gpus,gpu_time,cluster}, timestamp "YYYY-MM-DD HH:MM:SS" read as UTC, duration in
 * seconds). The file is not in time order; the result is. It has no job ids, so a job's id is its line number
 * minus 2 (the first data row, on line 2, is "0"); user and vc are both the virtual cluster.
 * Ignored: jobs with 0 GPUs or 0 s. Bad rows: negative or non-numeric values, a timestamp that is not a time.
 */
public final class PolluxPhillyCsvReader {
    static final List<String> REQUIRED = List.of("timestamp", "duration", "num_gpus", "cluster");

    private PolluxPhillyCsvReader() {}

    public static TraceReadResult read(DataSource src, BadRows badRows) {
        Collector c = new Collector(src, badRows);
        Csv.read(src, REQUIRED, row -> c.row(row.line(), () -> job(row, c)));
        return c.result();
    }

    private static void job(Csv.Row row, Collector c) {
        double submit = Times.epochSeconds(row, "timestamp");
        double duration = row.nonNegativeNumber("duration");
        int gpus = row.nonNegativeInteger("num_gpus");
        String vc = c.shared(row.text("cluster"));
        if (gpus == 0 || duration == 0) {
            c.ignore();
            return;
        }
        c.add(TraceRecord.timed(Long.toString(row.line() - 2), vc, vc, submit, gpus, duration, ""));
    }
}
