package dev.tandem.sim.trace;

import dev.tandem.data.Csv;
import dev.tandem.data.DataSource;

import java.util.List;

/**
 * Reads a pod list of Alibaba's GPU-sharing trace 2023 (cluster-trace-gpu-v2023, {@code openb_pod_list_*.csv}):
 * {@code name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,
 * scheduled_time}, times in seconds from the trace's start.
 * <ul>
 * <li>submit = creation_time; duration = deletion_time - scheduled_time (the time the pod held its GPUs).
 *     Pods still Running when the trace ends carry the trace's end as deletion_time, so their durations are
 *     cut off there, as in the trace.</li>
 * <li>ignored: CPU-only pods (num_gpu 0) and pods never scheduled (scheduled_time empty, or 0 while
 *     creation_time is later: the Pending pods), since neither ran on a GPU.</li>
 * <li>bad rows: scheduled before created, deleted not after scheduled, gpu_milli outside 1..1000 for a one-GPU
 *     pod, missing or non-numeric fields.</li>
 * <li>gpuFraction = gpu_milli / 1000 for one-GPU pods (a fractional GPU request), 1.0 for multi-GPU pods
 *     (which the trace always gives whole GPUs). The id is the pod name; there is no user or job type.</li>
 * </ul>
 * Lists without times ({@code openb_pod_list_multigpu50.csv} has only the resource columns) fail on the header:
 * they cannot be replayed in time.
 */
public final class AlibabaPodReader {
    static final List<String> REQUIRED = List.of("name", "num_gpu", "gpu_milli", "creation_time", "deletion_time", "scheduled_time");

    private AlibabaPodReader() {}

    public static TraceReadResult read(DataSource src, BadRows badRows) {
        Collector c = new Collector(src, badRows);
        Csv.read(src, REQUIRED, row -> c.row(row.line(), () -> pod(row, c)));
        return c.result();
    }

    private static void pod(Csv.Row row, Collector c) {
        String name = row.text("name");
        int gpus = row.nonNegativeInteger("num_gpu");
        double created = row.nonNegativeNumber("creation_time");
        if (gpus == 0) {
            c.ignore();
            return;
        }
        double scheduled = row.optionalNumber("scheduled_time");
        if (Double.isNaN(scheduled) || (scheduled == 0 && created > 0)) {
            c.ignore();
            return;
        }
        if (scheduled < created) throw row.error("scheduled_time", "is before creation_time (" + scheduled + " < " + created + ")");
        double deleted = row.number("deletion_time");
        if (!(deleted > scheduled)) throw row.error("deletion_time", "must be after scheduled_time (" + deleted + " <= " + scheduled + ")");
        double fraction = 1.0;
        if (gpus == 1) {
            int milli = row.integer("gpu_milli");
            if (milli < 1 || milli > 1000) throw row.error("gpu_milli", "must be within 1..1000 for a one-GPU pod, got " + milli);
            fraction = milli / 1000.0;
        }
        c.add(new TraceRecord(name, "", "", created, gpus, deleted - scheduled, Double.NaN, "", fraction));
    }
}
