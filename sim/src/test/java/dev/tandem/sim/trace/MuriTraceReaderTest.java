package dev.tandem.sim.trace;

import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.tandem.sim.trace.TraceFixtures.file;
import static dev.tandem.sim.trace.TraceFixtures.shared;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MuriTraceReaderTest {
    @TempDir Path dir;

    static final String HEADER = "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,iteration_time,resource_time_0,resource_time_1,resource_time_2,priority\n";

    @Test
    void readsAMuriTraceInMilliseconds() {
        TraceReadResult r = MuriTraceReader.read(shared("muri/trace1.csv"), BadRows.REJECT);
        assertThat(r.records()).hasSize(1494);
        assertThat(r.records().get(0)).isEqualTo(new TraceRecord("0", "", "", 0, 1, 2868294, 5853661, "dqn (batch size 128)", 1.0));
        assertThat(r.records().get(1)).isEqualTo(new TraceRecord("1", "", "", 201694, 8, 4472936, 8787693, "dqn (batch size 128)", 1.0));
        assertThat(r.records().get(2).jobType()).isEqualTo("vgg16 (batch size 16)");
        assertThat(r.records().getLast().id()).isEqualTo("1493");
        assertThat(r.records().getLast().submitTime()).isEqualTo(10817570);
        assertThat(r.records()).extracting(TraceRecord::gpus).contains(32);
    }

    @Test
    void readsAllFourTraces() {
        int[] sizes = {1494, 5755, 992, 2638};
        for (int i = 0; i < 4; i++) {
            assertThat(MuriTraceReader.read(shared("muri/trace" + (i + 1) + ".csv"), BadRows.REJECT).records()).hasSize(sizes[i]);
        }
    }

    @Test
    void rejectsOrSkipsBrokenRows() {
        String ok = "0,1,0,100,dqn,128,49000,0,490,446,8,0,1\n";
        String[][] bad = {
                {"1,1,0,many,dqn,128,49000,0,490,446,8,0,1\n", "iterations"},
                {"2,1,0,100,dqn,128,-49000,0,490,446,8,0,1\n", "duration"},
                {"3,-1,0,100,dqn,128,49000,0,490,446,8,0,1\n", "num_gpu"},
                {"4,1,0,100,,128,49000,0,490,446,8,0,1\n", "model_name"},
        };
        for (String[] b : bad) {
            DataSource src = file(dir, "trace.csv", HEADER + ok + b[0]);
            assertThatThrownBy(() -> MuriTraceReader.read(src, BadRows.REJECT)).as(b[1]).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("trace.csv:3").hasMessageContaining("field '" + b[1] + "'");
        }
        StringBuilder all = new StringBuilder(HEADER).append(ok);
        for (String[] b : bad) all.append(b[0]);
        TraceReadResult r = MuriTraceReader.read(file(dir, "trace.csv", all.toString()), BadRows.SKIP);
        assertThat(r.records()).singleElement().extracting(TraceRecord::durationS, TraceRecord::totalSteps).containsExactly(49.0, 100.0);
        assertThat(r.skipped()).isEqualTo(4);
    }
}
