package dev.tandem.data;

import dev.tandem.core.compat.CompatibilityModel;
import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Copies a pairs CSV (Lucid's format) row for row, appending the model's {@code pred_speed1, pred_speed2,
 * pred_fits}. Speed columns in the input are carried along untouched and never read.
 */
public final class PairsAnnotator {
    private PairsAnnotator() {}

    /** @return the number of rows written */
    public static int annotate(DataSource in, Writer out, ProfileStore profiles, CompatibilityModel model, MemoryRule memory, long gpuMemoryMiB) {
        List<JobProfile[]> resolved = new ArrayList<>();
        List<MeasuredPair> pairs = LucidPairReader.read(in, false, (row, p) -> // validates every row first
                resolved.add(new JobProfile[] {profileOf(row, profiles, p.a(), "model1"), profileOf(row, profiles, p.b(), "model2")}));
        CSVFormat fmt = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).setAllowMissingColumnNames(true).get();
        try (Reader r = in.open(); CSVParser parser = CSVParser.parse(r, fmt)) {
            List<String> header = new ArrayList<>(parser.getHeaderNames());
            header.addAll(List.of("pred_speed1", "pred_speed2", "pred_fits"));
            CSVPrinter printer = new CSVPrinter(out, CSVFormat.DEFAULT);
            printer.printRecord(header);
            int i = 0;
            for (CSVRecord rec : parser) {
                JobProfile[] ab = resolved.get(i);
                PairPrediction pr = model.predict(ab[0], ab[1], pairs.get(i).gpus());
                boolean fits = !ab[0].hasMemory() || !ab[1].hasMemory()
                        || memory.fits(gpuMemoryMiB, Math.round(ab[0].gmemMiB()), Math.round(ab[1].gmemMiB()));
                List<String> row = new ArrayList<>(rec.toList());
                row.add(pr.known() ? String.format(Locale.ROOT, "%.4f", pr.speedA()) : "");
                row.add(pr.known() ? String.format(Locale.ROOT, "%.4f", pr.speedB()) : "");
                row.add(fits ? "1" : "0");
                printer.printRecord(row);
                i++;
            }
            printer.flush();
            return i;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JobProfile profileOf(Csv.Row row, ProfileStore profiles, WorkloadSignature w, String field) {
        JobProfile p = profiles.orNull(w);
        if (p == null) throw row.error(field, "workload " + w.label() + " has no solo profile in --profiles");
        return p;
    }
}
