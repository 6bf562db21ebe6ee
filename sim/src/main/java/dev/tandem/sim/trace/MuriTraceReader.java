package dev.tandem.sim.trace;

import dev.tandem.data.Csv;
import dev.tandem.data.DataSource;

import java.util.List;

/**
 * Reads Muri's (SIGCOMM'22) traces ({@code trace*.csv}: {@code job_id,num_gpu,submit_time,iterations,model_name,
 * batch_size,duration,interval,iteration_time,resource_time_0..2,priority}).
 * <p>
 * Units: submit_time, duration and interval are in <b>milliseconds</b>, as is iteration_time. The data shows it:
 * duration = iterations x iteration_time to the rounding (e.g. 5,853,661 x 490 = 2,868,294,000), all times are
 * whole thousands (second resolution of the Philly jobs they come from), and read as milliseconds the traces span
 * 85 to 125 days with median run times of 1 to 4 hours, the shape of Philly; read as microseconds they would
 * span 2 to 3 hours with median jobs of 3 to 14 s. The record's submit time and duration are converted to seconds; the
 * iterations become {@code totalSteps}.
 * <p>
 * jobType is {@code "model_name (batch size N)"}, Gavel's naming, so that the {@link ProfileAssigner} can match
 * model and batch size. Ignored: jobs with 0 GPUs or 0 ms. Bad rows: negative or non-numeric values.
 */
public final class MuriTraceReader {
    static final List<String> REQUIRED = List.of("job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration");

    private MuriTraceReader() {}

    public static TraceReadResult read(DataSource src, BadRows badRows) {
        Collector c = new Collector(src, badRows);
        Csv.read(src, REQUIRED, row -> c.row(row.line(), () -> job(row, c)));
        return c.result();
    }

    private static void job(Csv.Row row, Collector c) {
        String id = row.text("job_id");
        int gpus = row.nonNegativeInteger("num_gpu");
        double submitMs = row.nonNegativeNumber("submit_time");
        double durationMs = row.nonNegativeNumber("duration");
        double iterations = row.number("iterations");
        if (!(iterations > 0)) throw row.error("iterations", "must be positive, got " + iterations);
        String model = row.text("model_name");
        int batch = row.has("batch_size") ? row.nonNegativeInteger("batch_size") : 0;
        if (gpus == 0 || durationMs == 0) {
            c.ignore();
            return;
        }
        String type = c.shared(batch > 0 ? model + " (batch size " + batch + ")" : model);
        c.add(new TraceRecord(id, "", "", submitMs / 1000, gpus, durationMs / 1000, iterations, type, 1.0));
    }
}
