package dev.tandem.data;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads solo profiles. CSV in Lucid's single-profile format (model, dataset, batchsize, amp, speed, gpu_util,
 * gmem_util, gmem[, label]) plus optional tandem columns sm_activity and sm_occupancy; or JSON, a list of
 * objects with the same field names. Values are validated: speeds positive, utilisation within 0..100 %,
 * memory non-negative and, when a GPU memory size is given, not above it; a signature may appear once.
 */
public final class ProfileReader {
    static final List<String> REQUIRED = List.of("model", "dataset", "batchsize", "amp", "speed", "gpu_util", "gmem_util", "gmem");

    private ProfileReader() {}

    /** @param gpuMemoryMiB the GPU's memory to check profiles against, or 0 for no check */
    public static List<JobProfile> read(DataSource src, long gpuMemoryMiB) {
        return src.isJson() ? readJson(src, gpuMemoryMiB) : readCsv(src, gpuMemoryMiB);
    }

    private static List<JobProfile> readCsv(DataSource src, long gpuMemoryMiB) {
        List<JobProfile> out = new ArrayList<>();
        Set<WorkloadSignature> seen = new HashSet<>();
        Csv.read(src, REQUIRED, row -> {
            WorkloadSignature sig = new WorkloadSignature(row.text("model"), row.text("dataset"), row.integer("batchsize"), row.flag("amp"));
            double speed = positive(row, "speed");
            double util = percent(row, "gpu_util");
            double mutil = percent(row, "gmem_util");
            double gmem = row.number("gmem");
            if (gmem < 0) throw row.error("gmem", "memory must not be negative, got " + gmem);
            if (gpuMemoryMiB > 0 && gmem > gpuMemoryMiB) throw row.error("gmem", gmem + " MiB is more than the GPU's " + gpuMemoryMiB + " MiB");
            double sma = fraction(row, "sm_activity");
            double smo = fraction(row, "sm_occupancy");
            int label = -1;
            if (row.has("label")) {
                label = row.integer("label");
                if (label < 0 || label > 2) throw row.error("label", "sharing label must be 0, 1 or 2, got " + label);
            }
            if (!seen.add(sig)) throw row.error("model", "duplicate profile for " + sig.label());
            out.add(new JobProfile(sig, speed, util, mutil, gmem, sma, smo, label));
        });
        if (out.isEmpty()) throw new DataFormatException(src.name(), 0, null, "no profiles in file");
        return out;
    }

    private static double positive(Csv.Row row, String f) {
        double v = row.number(f);
        if (!(v > 0)) throw row.error(f, "must be positive, got " + v);
        return v;
    }

    private static double percent(Csv.Row row, String f) {
        double v = row.number(f);
        if (v < 0 || v > 100) throw row.error(f, "utilisation must be within 0..100 %, got " + v);
        return v;
    }

    private static double fraction(Csv.Row row, String f) {
        double v = row.optionalNumber(f);
        if (!Double.isNaN(v) && (v < 0 || v > 1)) throw row.error(f, "must be a fraction within 0..1, got " + v);
        return v;
    }

    private static List<JobProfile> readJson(DataSource src, long gpuMemoryMiB) {
        JsonNode root = Json.read(src);
        if (root == null || !root.isArray()) throw new DataFormatException(src.name(), 1, null, "expected a JSON array of profiles");
        List<JobProfile> out = new ArrayList<>();
        Set<WorkloadSignature> seen = new HashSet<>();
        int i = 0;
        for (JsonNode n : root) {
            String where = "profile #" + (++i);
            try {
                WorkloadSignature sig = new WorkloadSignature(text(n, "model", src, where), n.path("dataset").asText(""),
                        n.path("batchsize").asInt(0), n.path("amp").asBoolean(false) || n.path("amp").asInt(0) == 1);
                double gmem = num(n, "gmem", src, where);
                if (gpuMemoryMiB > 0 && gmem > gpuMemoryMiB) throw new DataFormatException(src.name(), 0, "gmem", where + ": " + gmem + " MiB is more than the GPU's " + gpuMemoryMiB + " MiB");
                JobProfile p = new JobProfile(sig, num(n, "speed", src, where), num(n, "gpu_util", src, where), num(n, "gmem_util", src, where),
                        gmem, n.path("sm_activity").asDouble(Double.NaN), n.path("sm_occupancy").asDouble(Double.NaN), n.path("label").asInt(-1));
                if (!seen.add(sig)) throw new DataFormatException(src.name(), 0, "model", where + ": duplicate profile for " + sig.label());
                out.add(p);
            } catch (IllegalArgumentException e) {
                throw new DataFormatException(src.name(), 0, null, where + ": " + e.getMessage());
            }
        }
        if (out.isEmpty()) throw new DataFormatException(src.name(), 0, null, "no profiles in file");
        return out;
    }

    private static String text(JsonNode n, String f, DataSource src, String where) {
        JsonNode v = n.get(f);
        if (v == null || !v.isTextual() || v.asText().isBlank()) throw new DataFormatException(src.name(), 0, f, where + ": missing or not text");
        return v.asText();
    }

    private static double num(JsonNode n, String f, DataSource src, String where) {
        JsonNode v = n.get(f);
        if (v == null || !v.isNumber()) throw new DataFormatException(src.name(), 0, f, where + ": missing or not a number");
        return v.asDouble();
    }

    /** Writes profiles as CSV in the Lucid-compatible format this reader accepts. */
    public static void writeCsv(List<JobProfile> profiles, Writer w) throws IOException {
        w.write("model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem,label,sm_activity,sm_occupancy\n");
        for (JobProfile p : profiles) {
            WorkloadSignature s = p.signature();
            w.write(String.format(Locale.ROOT, "%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s%n", s.model(), s.dataset(), s.batchSize(), s.amp() ? 1 : 0,
                    p.soloSpeed(), p.gpuUtil(), p.gmemUtil(), p.gmemMiB(), p.shareLabel() < 0 ? "" : p.shareLabel(),
                    Double.isNaN(p.smActivity()) ? "" : p.smActivity(), Double.isNaN(p.smOccupancy()) ? "" : p.smOccupancy()));
        }
    }
}
