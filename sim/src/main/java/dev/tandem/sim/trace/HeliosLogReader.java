package dev.tandem.sim.trace;

import dev.tandem.data.Csv;
import dev.tandem.data.DataSource;

import java.util.List;

/**
 * Reads Helios' {@code cluster_log.csv} (S-Lab, SC'21: Venus, Earth, Saturn, Uranus):
 * {@code job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue}, times
 * "YYYY-MM-DD HH:MM:SS" (read as UTC), duration in seconds.
 * <ul>
 * <li>submit = submit_time; duration = the duration column (the run time, whatever the final state).</li>
 * <li>ignored: CPU jobs (gpu_num 0) and jobs that ran 0 s (cancelled while queued have no start).</li>
 * <li>bad rows: a negative or non-numeric duration or gpu_num, a submit time that is not a time.</li>
 * </ul>
 */
public final class HeliosLogReader {
    static final List<String> REQUIRED = List.of("job_id", "user", "vc", "gpu_num", "submit_time", "duration");

    private HeliosLogReader() {}

    public static TraceReadResult read(DataSource src, BadRows badRows) {
        Collector c = new Collector(src, badRows);
        Csv.read(src, REQUIRED, row -> c.row(row.line(), () -> job(row, c)));
        return c.result();
    }

    private static void job(Csv.Row row, Collector c) {
        String id = row.text("job_id");
        int gpus = row.nonNegativeInteger("gpu_num");
        double duration = row.nonNegativeNumber("duration");
        double submit = Times.epochSeconds(row, "submit_time");
        if (gpus == 0 || duration == 0) {
            c.ignore();
            return;
        }
        String user = row.has("user") ? c.shared(row.text("user")) : "";
        String vc = row.has("vc") ? c.shared(row.text("vc")) : "";
        c.add(TraceRecord.timed(id, user, vc, submit, gpus, duration, ""));
    }
}
