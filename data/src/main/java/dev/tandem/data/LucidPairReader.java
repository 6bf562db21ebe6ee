package dev.tandem.data;

import dev.tandem.core.model.WorkloadSignature;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Reads co-location measurements in Lucid's format: {@code ,model1,dataset1,gpu_num1,batchsize1,amp1,speed1,
 * model2,...,speed2,gpu_util,gmem_util,gmem}, speeds normalised to each job's solo speed. With
 * {@code speedsRequired} false (for {@code compat predict}), the speed columns may be absent.
 */
public final class LucidPairReader {
    private LucidPairReader() {}

    public static List<MeasuredPair> read(DataSource src, boolean speedsRequired) {
        return read(src, speedsRequired, (row, pair) -> {});
    }

    /**
     * As {@link #read(DataSource, boolean)}, handing each pair with its row to {@code check}, which may refuse it with
     * {@link Csv.Row#error} (so that the error names the line and field).
     */
    public static List<MeasuredPair> read(DataSource src, boolean speedsRequired, BiConsumer<Csv.Row, MeasuredPair> check) {
        List<String> required = speedsRequired
                ? List.of("model1", "dataset1", "batchsize1", "amp1", "speed1", "model2", "dataset2", "batchsize2", "amp2", "speed2")
                : List.of("model1", "dataset1", "batchsize1", "amp1", "model2", "dataset2", "batchsize2", "amp2");
        List<MeasuredPair> out = new ArrayList<>();
        Csv.read(src, required, row -> {
            WorkloadSignature a = signature(row, "1");
            WorkloadSignature b = signature(row, "2");
            int g1 = row.has("gpu_num1") ? row.integer("gpu_num1") : 1;
            int g2 = row.has("gpu_num2") ? row.integer("gpu_num2") : 1;
            if (g1 < 1) throw row.error("gpu_num1", "must be at least 1, got " + g1);
            if (g1 != g2) throw row.error("gpu_num2", "both jobs of a pair must use the same number of GPUs (" + g1 + " vs " + g2 + ")");
            double s1 = speedsRequired || row.has("speed1") ? speed(row, "speed1") : Double.NaN;
            double s2 = speedsRequired || row.has("speed2") ? speed(row, "speed2") : Double.NaN;
            double mem = row.optionalNumber("gmem");
            if (mem < 0) throw row.error("gmem", "memory must not be negative, got " + mem);
            // both speeds 0: the pair could not run together (out of memory), as Gavel writes it and tandem calibrate does
            MeasuredPair pair = new MeasuredPair(a, b, g1, s1, s2, mem, s1 == 0 && s2 == 0);
            check.accept(row, pair);
            out.add(pair);
        });
        return out;
    }

    private static WorkloadSignature signature(Csv.Row row, String i) {
        int bs = row.integer("batchsize" + i);
        if (bs <= 0) throw row.error("batchsize" + i, "must be positive, got " + bs);
        return new WorkloadSignature(row.text("model" + i), row.text("dataset" + i), bs, row.flag("amp" + i));
    }

    private static double speed(Csv.Row row, String f) {
        double v = row.number(f);
        if (v < 0 || v > 2) throw row.error(f, "normalised speed must be within 0..2, got " + v);
        return v;
    }
}
