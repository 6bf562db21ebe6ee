package dev.tandem.sim.trace;

import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.tandem.sim.trace.TraceFixtures.file;
import static dev.tandem.sim.trace.TraceFixtures.sample;
import static dev.tandem.sim.trace.TraceFixtures.shared;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GavelTraceReaderTest {
    @TempDir Path dir;

    @Test
    void readsAPhillyDerivedTrace() {
        TraceReadResult r = GavelTraceReader.read(shared("gavel/traces/0e4a51.trace"), BadRows.REJECT);
        assertThat(r.records()).hasSize(1181);
        assertThat(r.records().get(0)).isEqualTo(new TraceRecord("0", "", "", 0, 1, Double.NaN, 95121, "Transformer (batch size 128)", 1.0));
        TraceRecord second = r.records().get(1);
        assertThat(second.jobType()).isEqualTo("Recommendation (batch size 8192)");
        assertThat(second.submitTime()).isEqualTo(6);
        assertThat(second.totalSteps()).isEqualTo(10000);
        assertThat(second.hasDuration()).isFalse();
        TraceRecord last = r.records().getLast();
        assertThat(last.id()).isEqualTo("1180");
        assertThat(last.jobType()).isEqualTo("CycleGAN");
        assertThat(last.submitTime()).isEqualTo(7363956);
        assertThat(last.totalSteps()).isEqualTo(236751);
        Map<Integer, Long> gangs = r.records().stream().collect(Collectors.groupingBy(TraceRecord::gpus, Collectors.counting()));
        assertThat(gangs).containsExactlyInAnyOrderEntriesOf(Map.of(1, 436L, 2, 226L, 4, 451L, 8, 68L));
    }

    @Test
    void readsAPhysicalClusterTrace() {
        TraceReadResult r = GavelTraceReader.read(shared("gavel/traces/physical_cluster/small_test.trace"), BadRows.REJECT);
        assertThat(r.records()).hasSize(20);
        assertThat(r.records().get(0)).isEqualTo(new TraceRecord("0", "", "", 0, 2, Double.NaN, 346, "Transformer (batch size 128)", 1.0));
        assertThat(r.records().getLast().jobType()).isEqualTo("ResNet-18 (batch size 16)");
        assertThat(r.records().getLast().totalSteps()).isEqualTo(1817);
        assertThat(r.records()).filteredOn(t -> t.gpus() == 2).hasSize(3);
    }

    @Test
    void readsTheSample() {
        TraceReadResult r = GavelTraceReader.read(sample("gavel_sample.trace"), BadRows.REJECT);
        assertThat(r.records()).extracting(TraceRecord::jobType, TraceRecord::gpus, TraceRecord::submitTime, TraceRecord::totalSteps)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("ResNet-18 (batch size 64)", 1, 0.0, 58000.0),
                        org.assertj.core.groups.Tuple.tuple("A3C", 4, 30.0, 1934260.0),
                        org.assertj.core.groups.Tuple.tuple("LM (batch size 20)", 2, 95.5, 42000.0));
    }

    static String line(String steps, String arrival, String scale) {
        return "ResNet-18 (batch size 64)\tpython3 main.py\t--num_steps\t1\t" + steps + "\t" + arrival + "\t" + scale + "\n";
    }

    @Test
    void rejectsOrSkipsBrokenLines() {
        String ok = line("100", "0.0", "1");
        String[][] bad = {
                {line("many", "1.0", "1"), "total_steps"},
                {line("100", "-1.0", "1"), "arrival_time"},
                {line("100", "1.0", "0"), "scale_factor"},
                {line("100", "1.0", ""), "scale_factor"},
                {"ResNet-18 (batch size 64)\tpython3 main.py\t--num_steps\t1\t100\n", null},
        };
        for (String[] b : bad) {
            DataSource src = file(dir, "t.trace", ok + b[0]);
            var thrown = assertThatThrownBy(() -> GavelTraceReader.read(src, BadRows.REJECT)).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("t.trace:2");
            if (b[1] != null) thrown.hasMessageContaining("field '" + b[1] + "'");
            else thrown.hasMessageContaining("expected 7 tab-separated fields");
        }
        StringBuilder all = new StringBuilder(ok);
        for (String[] b : bad) all.append(b[0]);
        TraceReadResult r = GavelTraceReader.read(file(dir, "t.trace", all.toString()), BadRows.SKIP);
        assertThat(r.records()).extracting(TraceRecord::id).containsExactly("0");
        assertThat(r.skipped()).isEqualTo(bad.length);
        assertThatThrownBy(() -> GavelTraceReader.read(file(dir, "u.trace", "a\tb\tc\n"), BadRows.SKIP))
                .hasMessageContaining("u.trace:1").hasMessageContaining("expected 7 or 10");
        assertThat(GavelTraceReader.read(file(dir, "empty.trace", ""), BadRows.REJECT).records()).isEmpty();
    }
}
