package dev.tandem.sim.trace;

import dev.tandem.data.DataSource;

import java.util.Locale;

/**
 * A real trace to simulate instead of a generated workload.
 *
 * @param format  alibaba, philly (cluster_job_log JSON), helios, gavel, pollux (Pollux's philly_jobs.csv), muri, sacct
 *                (Slurm accounting: {@code sacct -P} or {@code sacct --json}), or
 *                tandem: tandem's own job list ({@code WorkloadCsv}), replayed exactly, without profile assignment
 * @param mapping optional CSV {@code pattern,model,dataset,batchsize,amp} assigning profiles to trace jobs
 * @param limit   simulate only the first N jobs (by submission), or all when not positive
 */
public record TraceSpec(String format, String source, BadRows badRows, String mapping, long limit) {
    public static final String WORKLOAD_FILE = "tandem";

    /** tandem's own job list: jobs name their workloads, so there are no trace records to assign profiles to. */
    public boolean isWorkloadFile() { return format.equalsIgnoreCase(WORKLOAD_FILE); }

    public TraceReadResult read() {
        if (isWorkloadFile()) throw new IllegalStateException("a tandem workload file has jobs, not trace records; read it with WorkloadCsv");
        DataSource src = DataSource.of(source);
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "alibaba" -> AlibabaPodReader.read(src, badRows);
            case "philly" -> PhillyJobLogReader.read(src, badRows);
            case "helios" -> HeliosLogReader.read(src, badRows);
            case "gavel" -> GavelTraceReader.read(src, badRows);
            case "pollux" -> PolluxPhillyCsvReader.read(src, badRows);
            case "muri" -> MuriTraceReader.read(src, badRows);
            case "sacct" -> SacctReader.read(src, badRows);
            default -> throw new IllegalArgumentException("unknown trace format '" + format + "'; known: alibaba, philly, helios, gavel, pollux, muri, sacct, tandem");
        };
    }
}
