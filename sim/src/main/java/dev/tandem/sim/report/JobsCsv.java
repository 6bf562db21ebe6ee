package dev.tandem.sim.report;

import dev.tandem.data.Csv;
import dev.tandem.sim.engine.JobRecord;
import dev.tandem.sim.engine.SimulationResult;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * Per-job results of every policy, one row per policy and job, for analysis outside tandem:
 * {@code policy,id,user,workload,gpus,submit_s,start_s,end_s,wait_s,jct_s,solo_s,slowdown,shared_s,restarts,ooms,partners}.
 * {@code wait_s} is all time spent queued (first wait plus waits after preemptions or crashes), {@code slowdown}
 * is JCT over solo run time, {@code shared_s} the seconds it ran next to another job, {@code partners} the jobs
 * it shared a GPU with, separated by spaces; {@code fair_s} the time it would have needed on an equal share of the cluster
 * and {@code ftf} its finish-time fairness, JCT over {@code fair_s} (see {@link JobRecord#fairSeconds()}).
 */
public final class JobsCsv {
    public static final String HEADER = "policy,id,user,workload,gpus,submit_s,start_s,end_s,wait_s,jct_s,solo_s,slowdown,shared_s,restarts,ooms,partners,fair_s,ftf";

    private JobsCsv() {}

    public static void write(List<SimulationResult> results, Writer out) throws IOException {
        CSVPrinter csv = new CSVPrinter(out, Csv.WRITE_FORMAT);
        csv.printRecord((Object[]) HEADER.split(","));
        for (SimulationResult r : results) {
            for (JobRecord j : r.jobs()) {
                csv.printRecord(r.policy(), j.id(), j.user(), j.workload(), j.gpus(), j.submit(), j.firstStart(), j.finish(), j.queueSeconds(),
                        j.jct(), j.soloSeconds(), j.slowdown(), j.sharedSeconds(), j.restarts(), j.ooms(), String.join(" ", j.partners()),
                        j.fairSeconds(), j.finishTimeFairness());
            }
        }
        csv.flush();
    }
}
