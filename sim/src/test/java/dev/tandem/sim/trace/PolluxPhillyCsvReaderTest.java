package dev.tandem.sim.trace;

import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.tandem.sim.trace.TraceFixtures.epoch;
import static dev.tandem.sim.trace.TraceFixtures.file;
import static dev.tandem.sim.trace.TraceFixtures.shared;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PolluxPhillyCsvReaderTest {
    @TempDir Path dir;

    @Test
    void readsThePolluxPhillyJobs() {
        TraceReadResult r = PolluxPhillyCsvReader.read(shared("philly/philly_jobs.csv"), BadRows.REJECT);
        assertThat(r.records()).hasSize(82247);
        assertThat(r.skipped()).isZero();
        assertThat(r.ignored()).isZero();
        assertThat(r.timeOriginS()).isEqualTo(epoch("2017-09-04 10:30:41"));
        // the file is not in time order: its earliest job is on line 31,568
        assertThat(r.records().get(0)).isEqualTo(TraceRecord.timed("31566", "7f04ca", "7f04ca", 0, 8, 2240194, ""));
        TraceRecord firstRow = r.records().stream().filter(t -> t.id().equals("0")).findFirst().orElseThrow();
        assertThat(firstRow).isEqualTo(TraceRecord.timed("0", "11cb48", "11cb48", 3011474, 1, 66, ""));
        assertThat(r.records().getLast().id()).isEqualTo("62253");
        assertThat(r.records().getLast().submitTime()).isEqualTo(9408690);
        assertThat(r.records()).filteredOn(t -> t.gpus() == 128).hasSize(3);
    }

    @Test
    void rejectsOrSkipsBrokenRows() {
        String h = "timestamp,duration,num_gpus,gpu_time,cluster\n";
        String ok = "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n";
        String[][] bad = {
                {"2017-10-09 07:01:55,sixty,1,66.0,11cb48\n", "duration"},
                {"2017-10-09 07:01:55,-66.0,1,66.0,11cb48\n", "duration"},
                {"2017-10-09,66.0,1,66.0,11cb48\n", "timestamp"},
                {"2017-10-09 07:01:55,66.0,1.5,66.0,11cb48\n", "num_gpus"},
                {"2017-10-09 07:01:55,66.0,1,66.0,\n", "cluster"},
        };
        for (String[] b : bad) {
            DataSource src = file(dir, "philly.csv", h + ok + b[0]);
            assertThatThrownBy(() -> PolluxPhillyCsvReader.read(src, BadRows.REJECT)).as(b[1]).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("philly.csv:3").hasMessageContaining("field '" + b[1] + "'");
        }
        StringBuilder all = new StringBuilder(h).append(ok);
        for (String[] b : bad) all.append(b[0]);
        all.append("2017-10-09 08:00:00,10.0,1,10.0,11cb48\n"); // line 8: its id is its row index, 6
        TraceReadResult r = PolluxPhillyCsvReader.read(file(dir, "philly.csv", all.toString()), BadRows.SKIP);
        assertThat(r.records()).extracting(TraceRecord::id).containsExactly("0", "6");
        assertThat(r.skipped()).isEqualTo(5);
    }
}
