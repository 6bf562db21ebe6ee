package dev.tandem.sim.report;

import dev.tandem.sim.engine.JobRecord;
import dev.tandem.sim.engine.SimulationResult;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * Per-job results of every policy, one row per policy and job, for analysis outside tandem:
 * {@code policy,id,user,workload,gpus,submit_s,start_s,end_s,wait_s,jct_s,solo_s,slowdown,shared_s,restarts,ooms,partners}.
 * {@code wait_s} is all time spent queued (first wait plus waits after preemptions or crashes), {@code slowdown}
 * is JCT over solo run time, {@code shared_s} the seconds it ran next to another job, {@code partners} the jobs
 * it shared a GPU with, separated by spaces.
 */
public final class JobsCsv {
    public static final String HEADER = "policy,id,user,workload,gpus,submit_s,start_s,end_s,wait_s,jct_s,solo_s,slowdown,shared_s,restarts,ooms,partners";

    private JobsCsv() {}

    public static void write(List<SimulationResult> results, Writer out) throws IOException {
        out.write(HEADER);
        out.write('\n');
        StringBuilder row = new StringBuilder(160);
        for (SimulationResult r : results) {
            for (JobRecord j : r.jobs()) {
                row.setLength(0);
                row.append(field(r.policy())).append(',').append(field(j.id())).append(',').append(field(j.user())).append(',')
                        .append(field(j.workload())).append(',').append(j.gpus()).append(',')
                        .append(j.submit()).append(',').append(j.firstStart()).append(',').append(j.finish()).append(',')
                        .append(j.queueSeconds()).append(',').append(j.jct()).append(',').append(j.soloSeconds()).append(',')
                        .append(j.slowdown()).append(',').append(j.sharedSeconds()).append(',')
                        .append(j.restarts()).append(',').append(j.ooms()).append(',').append(field(String.join(" ", j.partners()))).append('\n');
                out.write(row.toString());
            }
        }
    }

    private static String field(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) return s;
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
