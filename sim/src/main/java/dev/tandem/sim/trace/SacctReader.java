package dev.tandem.sim.trace;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.data.Csv;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a site's own history from Slurm accounting, so that an operator can replay past jobs under tandem. Two
 * forms, told apart by the first character of the file:
 * <ul>
 * <li>{@code sacct --parsable2} ('|'-separated, a header line), from
 *     {@code sacct -a -X -P -S START -E END --format=JobID,JobName,User,Account,Partition,State,Submit,Start,End,ElapsedRaw,AllocTRES,ReqTRES}.
 *     Required columns: JobID, State, Submit, ElapsedRaw, AllocTRES; JobName, User and Account are used when
 *     present, the rest is ignored. {@code --parsable} (a trailing '|') reads the same. Submit times are
 *     "YYYY-MM-DDTHH:MM:SS" as sacct prints them (or with a space), read as UTC: only differences are used.</li>
 * <li>{@code sacct --json} (Slurm 22.05's {@code openapi/dbv0.0.38} layout, and the later layouts where numbers
 *     are {@code {"set": true, "number": N}} objects and the state is a list): the {@code jobs} array, streamed;
 *     {@code time.submission} is epoch seconds, {@code time.elapsed} seconds, GPUs from {@code tres.allocated}.</li>
 * </ul>
 * For both:
 * <ul>
 * <li>id = the JobID (an array task as ARRAYID_TASK, as sacct prints it); user = User; vc = Account; job type =
 *     JobName (a mapping file can match it to a profile); gpus = the allocated {@code gres/gpu} count (the untyped
 *     count, else the sum of the typed ones such as {@code gres/gpu:a100}); duration = the elapsed time it ran,
 *     whatever its final state (a failed or cancelled job held its GPUs that long).</li>
 * <li>ignored: job steps (JobID with a '.', when sacct ran without -X), jobs not finished yet (PENDING, RUNNING,
 *     SUSPENDED, REQUEUED, ...), CPU-only jobs (no GPU allocated) and jobs that ran 0 s.</li>
 * <li>bad rows: no JobID, a Submit that is not a time, an ElapsedRaw or GPU count that is not a non-negative whole
 *     number.</li>
 * </ul>
 */
public final class SacctReader {
    static final List<String> REQUIRED = List.of("JobID", "State", "Submit", "ElapsedRaw", "AllocTRES");
    /** Final states: the job ran (or tried to) and its elapsed time is complete. */
    private static final Set<String> FINISHED = Set.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
            "PREEMPTED", "BOOT_FAIL", "DEADLINE");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private SacctReader() {}

    public static TraceReadResult read(DataSource src, BadRows badRows) {
        Collector c = new Collector(src, badRows);
        if (startsWithBrace(src)) readJson(src, c);
        else Csv.readDelimited(src, '|', REQUIRED, row -> c.row(row.line(), () -> parsable(row, c)));
        return c.result();
    }

    private static boolean startsWithBrace(DataSource src) {
        try (Reader r = src.open()) {
            for (int ch = r.read(); ch >= 0; ch = r.read()) {
                if (!Character.isWhitespace(ch)) return ch == '{';
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + src + ": " + e.getMessage(), e);
        }
    }

    private static void parsable(Csv.Row row, Collector c) {
        String id = row.text("JobID");
        if (id.contains(".")) { // a step of a job, listed under it without -X
            c.ignore();
            return;
        }
        if (!finished(row.text("State"))) {
            c.ignore();
            return;
        }
        double submit = submitTime(row);
        double elapsed = row.nonNegativeInteger("ElapsedRaw");
        int gpus = gpusOf(row, row.has("AllocTRES") ? row.text("AllocTRES") : "");
        if (gpus == 0 || elapsed == 0) {
            c.ignore();
            return;
        }
        String user = row.has("User") ? c.shared(row.text("User")) : "";
        String account = row.has("Account") ? c.shared(row.text("Account")) : "";
        String name = row.has("JobName") ? row.text("JobName") : "";
        c.add(TraceRecord.timed(id, user, account, submit, gpus, elapsed, name));
    }

    /** "CANCELLED by 1000" is CANCELLED. */
    private static boolean finished(String state) {
        String s = state.trim().toUpperCase(Locale.ROOT);
        int space = s.indexOf(' ');
        return FINISHED.contains(space < 0 ? s : s.substring(0, space));
    }

    private static double submitTime(Csv.Row row) {
        String v = row.text("Submit");
        double t = Times.epochSeconds(v.replace('T', ' '));
        if (Double.isNaN(t)) throw row.error("Submit", "'" + v + "' is not a time YYYY-MM-DDTHH:MM:SS");
        return t;
    }

    /**
     * The allocated GPUs of one job, from its GRES entries: Slurm lists the untyped count ("gpu") and, where GPUs have
     * types, each type's ("gpu:a100") as well, so the untyped count wins and the typed ones are summed only without it.
     */
    private static final class GpuCount {
        private Long untyped;
        private long typed;

        /** @param name a GRES name: "gpu" or "gpu:TYPE" (others are not GPUs and are ignored) */
        void add(String name, long n) {
            if (name.equals("gpu")) untyped = n;
            else if (name.startsWith("gpu:")) typed += n;
        }

        static boolean isGpu(String name) { return name.equals("gpu") || name.startsWith("gpu:"); }

        int total() { return (int) (untyped != null ? untyped : typed); }
    }

    /** The GPUs in a TRES list such as "billing=1,cpu=1,gres/gpu=2,gres/gpu:a100=2,mem=1000M,node=1". */
    private static int gpusOf(Csv.Row row, String tres) {
        GpuCount gpus = new GpuCount();
        for (String item : tres.split(",")) {
            int eq = item.indexOf('=');
            if (eq < 0) continue;
            String key = item.substring(0, eq).trim();
            if (!key.startsWith("gres/") || !GpuCount.isGpu(key.substring("gres/".length()))) continue;
            int n;
            try {
                n = Integer.parseInt(item.substring(eq + 1).trim());
            } catch (NumberFormatException e) {
                throw row.error("AllocTRES", "'" + item + "' does not give a whole number of GPUs");
            }
            if (n < 0) throw row.error("AllocTRES", "'" + item + "' gives a negative number of GPUs");
            gpus.add(key.substring("gres/".length()), n);
        }
        return gpus.total();
    }

    // ---- sacct --json

    private static void readJson(DataSource src, Collector c) {
        try (Reader r = src.open(); JsonParser p = MAPPER.createParser(r)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw new DataFormatException(src.name(), line(p), null, "expected sacct --json's object");
            boolean sawJobs = false;
            for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
                if (t == null) throw new DataFormatException(src.name(), line(p), null, "malformed JSON: the object is not closed");
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (!"jobs".equals(field)) {
                    p.skipChildren();
                    continue;
                }
                if (value != JsonToken.START_ARRAY) throw new DataFormatException(src.name(), line(p), "jobs", "expected an array of jobs");
                sawJobs = true;
                int index = 0;
                for (JsonToken j = p.nextToken(); j != JsonToken.END_ARRAY; j = p.nextToken(), index++) {
                    if (j == null) throw new DataFormatException(src.name(), line(p), "jobs", "malformed JSON: the array of jobs is not closed");
                    long line = line(p);
                    JsonNode job = p.readValueAsTree();
                    int at = index;
                    c.row(line, () -> jsonJob(new Where(src.name(), line, at), job, c));
                }
            }
            if (!sawJobs) throw new DataFormatException(src.name(), 1, "jobs", "no \"jobs\" array: not the output of sacct --json");
        } catch (JsonProcessingException e) {
            long line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw new DataFormatException(src.name(), line, null, "malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + src + ": " + e.getMessage(), e);
        }
    }

    private static long line(JsonParser p) { return p.currentTokenLocation().getLineNr(); }

    /** Where a job of the JSON is: its line (where its object starts) and its index in {@code jobs}. */
    private record Where(String source, long line, int index) {
        DataFormatException error(String field, String problem) {
            return new DataFormatException(source, line, "jobs[" + index + "]." + field, problem);
        }
    }

    private static void jsonJob(Where w, JsonNode job, Collector c) {
        if (!finished(state(job.path("state").path("current")))) {
            c.ignore();
            return;
        }
        long jobId = wholeNumber(w, job, "job_id");
        JsonNode array = job.path("array");
        long arrayJob = array.isMissingNode() ? 0 : optionalWholeNumber(w, array, "job_id", "array.job_id");
        long task = array.isMissingNode() ? -1 : optionalWholeNumber(w, array, "task_id", "array.task_id");
        String id = arrayJob != 0 && task >= 0 ? arrayJob + "_" + task : String.valueOf(jobId);
        double submit = wholeNumber(w, job.path("time"), "submission", "time.submission");
        double elapsed = wholeNumber(w, job.path("time"), "elapsed", "time.elapsed");
        GpuCount count = new GpuCount();
        int i = 0;
        for (JsonNode tres : job.path("tres").path("allocated")) {
            String name = tres.path("name").asText("");
            if (tres.path("type").asText("").equals("gres") && GpuCount.isGpu(name)) {
                count.add(name, Math.max(0, optionalWholeNumber(w, tres, "count", "tres.allocated[" + i + "].count")));
            }
            i++;
        }
        int gpus = count.total();
        if (gpus == 0 || elapsed == 0) {
            c.ignore();
            return;
        }
        c.add(TraceRecord.timed(id, c.shared(job.path("user").asText("")), c.shared(job.path("account").asText("")), submit, gpus, elapsed,
                job.path("name").asText("")));
    }

    /** The job's state: a string (22.05) or a list of flags whose first is the state (23.02 and later). */
    private static String state(JsonNode current) {
        if (current.isArray()) return current.isEmpty() ? "" : current.get(0).asText("");
        return current.asText("");
    }

    private static long wholeNumber(Where w, JsonNode parent, String field) {
        return wholeNumber(w, parent, field, field);
    }

    /** A non-negative whole number, plain or as {"set": true, "number": N}; {@code path} names it in errors. */
    private static long wholeNumber(Where w, JsonNode parent, String field, String path) {
        JsonNode n = parent.path(field);
        if (n.isObject()) n = n.path("set").asBoolean(true) ? n.path("number") : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        if (n.isMissingNode() || n.isNull()) throw w.error(path, "missing");
        if (!n.canConvertToLong() || !n.isIntegralNumber()) throw w.error(path, "'" + n.asText() + "' is not a whole number");
        long v = n.asLong();
        if (v < 0) throw w.error(path, "must not be negative, got " + v);
        return v;
    }

    /** As {@link #wholeNumber}, -1 when absent or null (an array task id of a job that is not one). */
    private static long optionalWholeNumber(Where w, JsonNode parent, String field, String path) {
        JsonNode n = parent.path(field);
        if (n.isMissingNode() || n.isNull() || (n.isObject() && !n.path("set").asBoolean(true))) return -1;
        return wholeNumber(w, parent, field, path);
    }
}
