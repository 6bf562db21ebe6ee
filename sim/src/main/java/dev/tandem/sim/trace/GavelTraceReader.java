package dev.tandem.sim.trace;

import dev.tandem.data.Csv;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Reads Gavel's (OSDI'20) tab-separated traces, one job per line, no header. The files come in two layouts,
 * told apart by the first line's field count (checked against the real files; the column order is that of
 * Gavel's {@code utils.parse_trace}):
 * <ul>
 * <li>7 fields, the Philly-derived traces ({@code traces/<vc>.trace}): job type, command, step flag, needs data
 *     dir (0/1: 0 for A3C only), total steps, arrival time (s), scale factor (GPUs: 1 .. 64).</li>
 * <li>10 fields, the physical-cluster traces ({@code traces/physical_cluster/*.trace}): job type, command,
 *     working directory, step flag, needs data dir, total steps, scale factor, priority weight, SLO, arrival
 *     time.</li>
 * </ul>
 * jobType = the job type (e.g. "ResNet-18 (batch size 64)"), gpus = scale factor, submit = arrival time, id = the
 * line number minus 1 (Gavel numbers jobs in file order from 0). Gavel gives work in steps, not seconds, so
 * {@code durationS} is NaN and {@code totalSteps} holds the steps; {@link TraceJobs} uses them as the job's
 * iterations (its solo duration is then steps / the profile's solo throughput). Bad rows: a wrong field count,
 * non-positive steps or scale factor, negative arrival time.
 */
public final class GavelTraceReader {
    static final List<String> PHILLY_LAYOUT = List.of("job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time", "scale_factor");
    static final List<String> PHYSICAL_LAYOUT = List.of("job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir",
            "total_steps", "scale_factor", "priority_weight", "SLO", "arrival_time");

    private GavelTraceReader() {}

    public static TraceReadResult read(DataSource src, BadRows badRows) {
        List<String> layout = layout(src);
        Collector c = new Collector(src, badRows);
        if (layout == null) return c.result(); // empty file
        Csv.readHeaderless(src, '\t', layout, row -> c.row(row.line(), () -> job(row, layout, c)));
        return c.result();
    }

    /** The layout of the first non-blank line. */
    private static List<String> layout(DataSource src) {
        try (BufferedReader r = new BufferedReader(src.open())) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank()) continue;
                int fields = line.split("\t", -1).length;
                if (fields == PHILLY_LAYOUT.size()) return PHILLY_LAYOUT;
                if (fields == PHYSICAL_LAYOUT.size()) return PHYSICAL_LAYOUT;
                throw new DataFormatException(src.name(), 1, null, "expected 7 or 10 tab-separated fields (a Gavel trace), got " + fields);
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + src + ": " + e.getMessage(), e);
        }
    }

    private static void job(Csv.Row row, List<String> layout, Collector c) {
        if (row.size() != layout.size()) throw row.error(null, "expected " + layout.size() + " tab-separated fields like the first line, got " + row.size());
        String type = c.shared(row.text("job_type"));
        double steps = row.number("total_steps");
        if (!(steps > 0)) throw row.error("total_steps", "must be positive, got " + steps);
        int gpus = row.integer("scale_factor");
        if (gpus < 1) throw row.error("scale_factor", "must be at least 1, got " + gpus);
        double arrival = row.nonNegativeNumber("arrival_time");
        c.add(new TraceRecord(Long.toString(row.line() - 1), "", "", arrival, gpus, Double.NaN, steps, type, 1.0));
    }
}
