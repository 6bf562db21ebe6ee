package dev.tandem.sim.trace;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;

/**
 * Reads Microsoft Philly's {@code cluster_job_log} (msr-fiddle/philly-traces): a JSON array of jobs
 * {@code {"status", "vc", "jobid", "attempts": [{"start_time", "end_time", "detail": [{"ip", "gpus": [...]}]}],
 * "submitted_time", "user"}}, times "YYYY-MM-DD HH:MM:SS" (read as UTC).
 * <ul>
 * <li>gpus = the GPUs of the first attempt, summed over its machines; duration = the last attempt's end minus
 *     the first attempt's start (so it includes the gaps between retries, which the job held in the trace).</li>
 * <li>ignored: jobs with an empty attempt list (killed or failed before they ever started) and jobs that ran
 *     0 s.</li>
 * <li>bad rows: no {@code attempts} field, a start/end time that is missing, null, "None" or not a time, no GPUs
 *     in the first attempt, an end before the start.</li>
 * </ul>
 * The file is streamed with Jackson's parser, one job tree at a time, so the 1 GB log needs memory only for the
 * records. A bad job's line is the line where its object starts; the message also names its jobid (or, without
 * one, its column), which finds it in a file written on a single line. A JSON syntax error ends the read even
 * under SKIP: the parser cannot find the next job after it.
 */
public final class PhillyJobLogReader {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private PhillyJobLogReader() {}

    public static TraceReadResult read(DataSource src, BadRows badRows) {
        Collector c = new Collector(src, badRows);
        try (Reader r = src.open(); JsonParser p = MAPPER.createParser(r)) {
            if (p.nextToken() != JsonToken.START_ARRAY) throw new DataFormatException(src.name(), line(p), null, "expected a JSON array of jobs");
            for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                if (t == null) throw new DataFormatException(src.name(), line(p), null, "malformed JSON: the array of jobs is not closed");
                long line = line(p);
                long column = p.currentTokenLocation().getColumnNr();
                JsonNode job = p.readValueAsTree();
                c.row(line, () -> job(src, job, line, column, c));
            }
        } catch (JsonProcessingException e) {
            long line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw new DataFormatException(src.name(), line, null, "malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + src + ": " + e.getMessage(), e);
        }
        return c.result();
    }

    private static long line(JsonParser p) { return p.currentTokenLocation().getLineNr(); }

    private static void job(DataSource src, JsonNode job, long line, long column, Collector c) {
        Where w = new Where(src, line, column, job.path("jobid").asText(""));
        if (!job.isObject()) throw w.error(null, "a job must be a JSON object");
        String id = text(job, "jobid", w);
        double submitted = time(job.get("submitted_time"), "submitted_time", w);
        JsonNode attempts = job.get("attempts");
        if (attempts == null || !attempts.isArray()) throw w.error("attempts", "missing or not a list");
        if (attempts.isEmpty()) {
            c.ignore();
            return;
        }
        JsonNode first = attempts.get(0);
        double start = time(first.get("start_time"), "attempts[0].start_time", w);
        int last = attempts.size() - 1;
        double end = time(attempts.get(last).get("end_time"), "attempts[" + last + "].end_time", w);
        int gpus = 0;
        JsonNode detail = first.get("detail");
        if (detail == null || !detail.isArray()) throw w.error("attempts[0].detail", "missing or not a list");
        for (JsonNode machine : detail) gpus += machine.path("gpus").size();
        if (gpus == 0) throw w.error("attempts[0].detail", "no GPUs listed in the first attempt");
        if (end < start) throw w.error("attempts[" + last + "].end_time", "is before attempts[0].start_time");
        if (end == start) {
            c.ignore();
            return;
        }
        c.add(TraceRecord.timed(id, c.shared(job.path("user").asText("")), c.shared(job.path("vc").asText("")), submitted, gpus, end - start, ""));
    }

    private static String text(JsonNode job, String field, Where w) {
        JsonNode v = job.get(field);
        if (v == null || !v.isValueNode() || v.isNull() || v.asText().isBlank()) throw w.error(field, "missing or empty");
        return v.asText();
    }

    /** Philly writes unknown times as null or "None". */
    private static double time(JsonNode v, String field, Where w) {
        if (v == null || v.isNull() || !v.isTextual() || v.asText().equals("None")) throw w.error(field, "time missing (" + (v == null ? "absent" : v) + ")");
        double t = Times.epochSeconds(v.asText());
        if (Double.isNaN(t)) throw w.error(field, Times.notATime(v.asText()));
        return t;
    }

    /** Where a job starts in the file, for messages. */
    private record Where(DataSource src, long line, long column, String jobId) {
        DataFormatException error(String field, String problem) {
            String job = jobId.isEmpty() ? "job at column " + column : "job " + jobId;
            return new DataFormatException(src.name(), line, field, job + ": " + problem);
        }
    }
}
