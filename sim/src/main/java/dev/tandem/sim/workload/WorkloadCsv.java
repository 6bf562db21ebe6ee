package dev.tandem.sim.workload;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.Csv;
import dev.tandem.data.DataSource;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * tandem's own job list, for replaying exactly the same jobs: one row per job,
 * {@code id,user,submit_s,gpus,model,dataset,batchsize,amp,iterations} where each row gives either
 * {@code iterations} (work in its profile's solo iterations, as the simulator counts it) or {@code duration_s}
 * (solo run time, turned into iterations at the profile's speed); {@code user} and {@code dataset} may be empty.
 * Jobs keep the file's order among equal submit times. {@link #write} writes {@code iterations} with every digit
 * Java needs to read the same double back, so a written list replays bit for bit.
 */
public final class WorkloadCsv {
    public static final List<String> COLUMNS = List.of("id", "user", "submit_s", "gpus", "model", "dataset", "batchsize", "amp", "iterations");
    private static final List<String> REQUIRED = List.of("id", "submit_s", "gpus", "model", "batchsize", "amp");

    private WorkloadCsv() {}

    /**
     * The jobs of a workload file. Each job's workload must have a profile; its memory per GPU is the profile's
     * peak (0 when the profile has none), as for trace jobs.
     */
    public static List<Job> read(DataSource src, ProfileStore profiles) {
        List<Job> jobs = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        Csv.read(src, REQUIRED, row -> {
            String id = row.text("id");
            if (!ids.add(id)) throw row.error("id", "job id '" + id + "' appears twice");
            String user = row.has("user") ? row.text("user") : "";
            double submit = row.nonNegativeNumber("submit_s");
            int gpus = row.integer("gpus");
            if (gpus < 1) throw row.error("gpus", "must be at least 1, got " + gpus);
            WorkloadSignature sig = new WorkloadSignature(row.text("model"), row.has("dataset") ? row.text("dataset") : "",
                    row.nonNegativeInteger("batchsize"), row.flag("amp"));
            JobProfile p = profiles.find(sig).orElseThrow(() -> row.error("model", "no profile for workload " + sig.label()
                    + " in the profile set (give --profiles/--truth that have it)"));
            boolean hasIterations = row.has("iterations"), hasDuration = row.has("duration_s");
            if (hasIterations == hasDuration) throw row.error(hasIterations ? "duration_s" : "iterations", "give exactly one of iterations and duration_s");
            double iterations = hasIterations ? row.number("iterations") : row.number("duration_s") * p.soloSpeed();
            if (!(iterations > 0)) throw row.error(hasIterations ? "iterations" : "duration_s", "must be positive");
            long memory = p.hasMemory() ? Math.round(p.gmemMiB()) : 0;
            jobs.add(new Job(id, user, submit, gpus, sig, iterations, memory, 0));
        });
        if (jobs.isEmpty()) throw new dev.tandem.data.DataFormatException(src.name(), 0, null, "no jobs in the workload file");
        return jobs;
    }

    /** Writes {@code jobs} in the format {@link #read} takes, in the order given. */
    public static void write(List<Job> jobs, Writer out) throws IOException {
        CSVPrinter csv = new CSVPrinter(out, Csv.WRITE_FORMAT);
        csv.printRecord(COLUMNS);
        for (Job j : jobs) {
            WorkloadSignature s = j.signature();
            csv.printRecord(j.id(), j.user(), Double.toString(j.submitTime()), j.gpus(), s.model(), s.dataset(), s.batchSize(), s.amp() ? "1" : "0",
                    Double.toString(j.totalIterations()));
        }
        csv.flush();
    }
}
