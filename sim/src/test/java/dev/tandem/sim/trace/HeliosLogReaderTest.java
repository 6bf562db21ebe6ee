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

class HeliosLogReaderTest {
    @TempDir Path dir;

    static final String HEADER = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";

    @Test
    void readsTheSampleInThePublishedFormat() {
        TraceReadResult r = HeliosLogReader.read(sample("helios_cluster_log_sample.csv"), BadRows.REJECT);
        assertThat(r.ignored()).isEqualTo(2); // a CPU job and a job cancelled before it started
        assertThat(r.timeOriginS()).isEqualTo(epoch("2020-04-01 00:00:10")); // the first GPU job
        assertThat(r.records()).containsExactly(
                TraceRecord.timed("6qmf6a", "uGxWz", "vcEwI", 0, 1, 4200, ""),
                TraceRecord.timed("6qmf7h", "u2tBi", "vc8Gu", 50, 8, 600, ""),
                TraceRecord.timed("6qmf8k", "uLpQ3", "vcWoR", 140, 16, 172800, ""),
                TraceRecord.timed("6qmfa1", "uLpQ3", "vcWoR", 230, 4, 1800, ""));
    }

    @Test
    void rejectsOrSkipsBrokenRows() {
        String ok = "j0,u,v,1,4,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n";
        String[][] bad = {
                {"j1,u,v,x,4,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n", "gpu_num"},
                {"j2,u,v,1,4,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,-60,0\n", "duration"},
                {"j3,u,v,1,4,1,COMPLETED,2020-13-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n", "submit_time"},
                {"j4,u,v,1,4,1,COMPLETED\n", "duration"},
                {",u,v,1,4,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n", "job_id"},
        };
        for (String[] b : bad) {
            DataSource src = file(dir, "cluster_log.csv", HEADER + ok + b[0]);
            assertThatThrownBy(() -> HeliosLogReader.read(src, BadRows.REJECT)).as(b[1]).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("cluster_log.csv:3").hasMessageContaining("field '" + b[1] + "'");
        }
        StringBuilder all = new StringBuilder(HEADER).append(ok);
        for (String[] b : bad) all.append(b[0]);
        TraceReadResult r = HeliosLogReader.read(file(dir, "cluster_log.csv", all.toString()), BadRows.SKIP);
        assertThat(r.records()).extracting(TraceRecord::id).containsExactly("j0");
        assertThat(r.skipped()).isEqualTo(5);
        assertThat(r.firstProblems().get(3)).contains("cluster_log.csv:6").contains("too few fields");
    }

    @Test
    void lineNumbersCountBlankLines() {
        String ok = "j0,u,v,1,4,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n";
        String bad = "j1,u,v,1,4,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,1h,0\n";
        assertThatThrownBy(() -> HeliosLogReader.read(file(dir, "gaps.csv", HEADER + ok + "\n\n" + bad), BadRows.REJECT))
                .hasMessageContaining("gaps.csv:5").hasMessageContaining("'1h' is not a number");
    }

    @Test
    void aMissingColumnFailsOnTheHeader() {
        assertThatThrownBy(() -> HeliosLogReader.read(file(dir, "c.csv", "job_id,user,vc,gpu_num,submit_time\nj,u,v,1,2020-04-01 00:00:00\n"), BadRows.SKIP))
                .hasMessageContaining("c.csv:1").hasMessageContaining("'duration'");
    }
}
