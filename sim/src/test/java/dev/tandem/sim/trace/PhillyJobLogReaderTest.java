package dev.tandem.sim.trace;

import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.tandem.sim.trace.TraceFixtures.epoch;
import static dev.tandem.sim.trace.TraceFixtures.file;
import static dev.tandem.sim.trace.TraceFixtures.sample;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PhillyJobLogReaderTest {
    @TempDir Path dir;

    static final String SAMPLE = "philly_cluster_job_log_sample.json";

    @Test
    void readsTheSampleInThePublishedFormat() {
        TraceReadResult r = PhillyJobLogReader.read(sample(SAMPLE), BadRows.SKIP);
        assertThat(r.skipped()).isEqualTo(1);  // job 10263: its attempt has no end time
        assertThat(r.ignored()).isEqualTo(1);  // job 10260: no attempts, never started
        assertThat(r.timeOriginS()).isEqualTo(epoch("2017-10-03 01:30:00"));
        assertThat(r.records()).extracting(TraceRecord::id).containsExactly("application_1506638472019_10201",
                "application_1506638472019_10238", "application_1506638472019_10247", "application_1506638472019_10252");
        assertThat(r.records().get(0)).isEqualTo(TraceRecord.timed("application_1506638472019_10201", "a21d07", "ee9e8c", 0, 2, 300, ""));
        assertThat(r.records().get(1)).isEqualTo(TraceRecord.timed("application_1506638472019_10238", "bf0e8b", "ee9e8c", 728, 1, 630, ""));
        TraceRecord multiMachine = r.records().get(2);
        assertThat(multiMachine.gpus()).isEqualTo(16);     // two machines with 8 GPUs each
        assertThat(multiMachine.durationS()).isEqualTo(12 * 3600);
        TraceRecord retried = r.records().get(3);
        assertThat(retried.gpus()).isEqualTo(4);           // the first attempt's GPUs
        assertThat(retried.durationS()).isEqualTo(3600);   // first start to last end
        assertThat(retried.submitTime()).isEqualTo(5400);
        assertThat(r.firstProblems()).singleElement().asString()
                .contains(SAMPLE + ":81").contains("field 'attempts[0].end_time'").contains("application_1506638472019_10263");
    }

    @Test
    void rejectsTheBrokenJobWithFileLineAndField() {
        assertThatThrownBy(() -> PhillyJobLogReader.read(sample(SAMPLE), BadRows.REJECT)).isInstanceOf(DataFormatException.class)
                .hasMessageContaining(SAMPLE + ":81").hasMessageContaining("field 'attempts[0].end_time'").hasMessageContaining("time missing");
    }

    static String job(String id, String submitted, String attempts) {
        return "{\"status\": \"Pass\", \"vc\": \"vc1\", \"jobid\": \"" + id + "\", \"attempts\": " + attempts
                + ", \"submitted_time\": " + submitted + ", \"user\": \"u1\"}";
    }

    static String attempt(String start, String end, String gpus) {
        return "{\"start_time\": " + start + ", \"end_time\": " + end + ", \"detail\": [{\"ip\": \"m1\", \"gpus\": " + gpus + "}]}";
    }

    @Test
    void badValuesAreBadRows() {
        String ok = job("ok", "\"2017-10-01 00:00:00\"", "[" + attempt("\"2017-10-01 00:00:10\"", "\"2017-10-01 00:01:10\"", "[\"gpu0\"]") + "]");
        String[][] bad = {
                {job("none", "\"2017-10-01 00:00:00\"", "[" + attempt("\"None\"", "\"2017-10-01 00:01:10\"", "[\"gpu0\"]") + "]"), "attempts[0].start_time"},
                {job("garbled", "\"yesterday\"", "[" + attempt("\"2017-10-01 00:00:10\"", "\"2017-10-01 00:01:10\"", "[\"gpu0\"]") + "]"), "submitted_time"},
                {job("backwards", "\"2017-10-01 00:00:00\"", "[" + attempt("\"2017-10-01 00:00:10\"", "\"2017-10-01 00:00:05\"", "[\"gpu0\"]") + "]"), "attempts[0].end_time"},
                {job("nogpus", "\"2017-10-01 00:00:00\"", "[" + attempt("\"2017-10-01 00:00:10\"", "\"2017-10-01 00:01:10\"", "[]") + "]"), "attempts[0].detail"},
                {"{\"jobid\": \"noattempts\", \"submitted_time\": \"2017-10-01 00:00:00\"}", "attempts"},
                {"{\"user\": \"u1\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": []}", "jobid"},
        };
        for (String[] b : bad) {
            DataSource src = file(dir, "log.json", "[\n" + ok + ",\n" + b[0] + "\n]\n");
            assertThatThrownBy(() -> PhillyJobLogReader.read(src, BadRows.REJECT)).as(b[1]).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("log.json:3").hasMessageContaining("field '" + b[1] + "'");
        }
        StringBuilder all = new StringBuilder("[").append(ok);
        for (String[] b : bad) all.append(",\n").append(b[0]);
        TraceReadResult r = PhillyJobLogReader.read(file(dir, "log.json", all.append("]").toString()), BadRows.SKIP);
        assertThat(r.records()).singleElement().extracting(TraceRecord::id, TraceRecord::durationS, TraceRecord::user, TraceRecord::vc)
                .containsExactly("ok", 60.0, "u1", "vc1");
        assertThat(r.skipped()).isEqualTo(bad.length);
    }

    @Test
    void aFileOnOneLineNamesTheJob() {
        String line = "[" + job("a", "\"2017-10-01 00:00:00\"", "[]") + ", " + job("b", "null", "[]") + "]";
        assertThatThrownBy(() -> PhillyJobLogReader.read(file(dir, "one.json", line), BadRows.REJECT))
                .hasMessageContaining("one.json:1").hasMessageContaining("job b").hasMessageContaining("'submitted_time'");
    }

    @Test
    void malformedJsonFailsEvenWhenSkipping() {
        String broken = "[\n" + job("a", "\"2017-10-01 00:00:00\"", "[]") + ",\n{\"jobid\": \"b\", \"user\": }\n]";
        for (BadRows mode : BadRows.values()) {
            assertThatThrownBy(() -> PhillyJobLogReader.read(file(dir, "bad.json", broken), mode)).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("bad.json:3").hasMessageContaining("malformed JSON");
        }
        assertThatThrownBy(() -> PhillyJobLogReader.read(file(dir, "cut.json", "[\n" + job("a", "\"2017-10-01 00:00:00\"", "[]") + ",\n"), BadRows.SKIP))
                .hasMessageContaining("cut.json").hasMessageContaining("malformed JSON");
        assertThatThrownBy(() -> PhillyJobLogReader.read(file(dir, "obj.json", "{\"jobs\": []}"), BadRows.SKIP))
                .hasMessageContaining("obj.json:1").hasMessageContaining("expected a JSON array");
    }
}
