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

/**
 * Slurm accounting as a trace. The samples are real output of Slurm 22.05.8 (Debian 12), recorded from the cluster
 * {@code .ci/slurm-up.sh} starts with {@code SLURM_DBD=1} (2 nodes x 4 GPUs, slurmdbd on MariaDB) after these jobs:
 * resnet18-cifar10 (1 GPU, 3 s), bert-squad (2 GPUs, 5 s), gpt2-wiki (4 GPUs, 4 s), preprocess (no GPU), broken-train
 * (1 GPU, exit 3), sweep (array 0-2, 1 GPU each, 2 s), held-then-cancelled (held, cancelled before it ran: sacct
 * lists it nowhere), still-running (1 GPU, running when recorded). Recorded with
 * {@code sacct -a -X -P -S 2026-12-01 --format=JobID,JobName,User,Account,Partition,State,Submit,Start,End,ElapsedRaw,AllocTRES,ReqTRES},
 * the same with {@code -p} and without {@code -X} (steps listed), and {@code sacct -a -S 2026-12-01 --json}.
 */
class SacctReaderTest {
    @TempDir Path dir;

    static final String HEADER = "JobID|JobName|User|Account|Partition|State|Submit|Start|End|ElapsedRaw|AllocTRES|ReqTRES\n";

    /** What the recorded jobs are as a trace: the GPU jobs that finished, submitted together (the trace's time 0). */
    static final TraceRecord[] RECORDED = {
            TraceRecord.timed("1", "root", "root", 0, 1, 4, "resnet18-cifar10"),
            TraceRecord.timed("2", "root", "root", 0, 2, 6, "bert-squad"),
            TraceRecord.timed("3", "root", "root", 0, 4, 5, "gpt2-wiki"),
            TraceRecord.timed("5", "root", "root", 0, 1, 2, "broken-train"),
            TraceRecord.timed("6_0", "root", "root", 0, 1, 2, "sweep"),
            TraceRecord.timed("6_1", "root", "root", 0, 1, 2, "sweep"),
            TraceRecord.timed("6_2", "root", "root", 0, 1, 2, "sweep"),
    };

    @Test
    void readsRealSacctParsableOutput() {
        TraceReadResult r = SacctReader.read(sample("sacct_parsable2_slurm-22.05.txt"), BadRows.REJECT);
        assertThat(r.records()).containsExactlyInAnyOrder(RECORDED);
        assertThat(r.ignored()).as("the CPU job and the running one").isEqualTo(2);
        assertThat(r.timeOriginS()).isEqualTo(epoch("2026-12-03 18:33:52"));
    }

    @Test
    void readsTheSameFromParsableWithStepsAndFromJson() {
        TraceReadResult steps = SacctReader.read(sample("sacct_parsable_steps_slurm-22.05.txt"), BadRows.REJECT);
        assertThat(steps.records()).containsExactlyInAnyOrder(RECORDED);
        assertThat(steps.ignored()).as("two jobs and every step").isEqualTo(2 + 9);
        TraceReadResult json = SacctReader.read(sample("sacct_json_slurm-22.05.json"), BadRows.REJECT);
        assertThat(json.records()).containsExactlyInAnyOrder(RECORDED);
        assertThat(json.ignored()).isEqualTo(2);
        assertThat(json.timeOriginS()).isEqualTo(epoch("2026-12-03 18:33:52"));
    }

    @Test
    void typedGpusCancelledJobsAndLaterJsonLayoutsAreRead() {
        String rows = HEADER
                + "10|a|u|acct|gpu|CANCELLED by 1000|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:01:10|60|cpu=4,gres/gpu:a100=2,node=1|\n"
                + "11|b|u|acct|gpu|TIMEOUT|2026-01-01 00:00:30|x|y|3600|cpu=4,gres/gpu=8,gres/gpu:h100=8,node=1|\n"
                + "12|c|u|acct|gpu|CANCELLED by 1000|2026-01-01T00:00:40|None|2026-01-01T00:00:50|0||\n";
        TraceReadResult r = SacctReader.read(file(dir, "typed.txt", rows), BadRows.REJECT);
        assertThat(r.records()).containsExactly(TraceRecord.timed("10", "u", "acct", 0, 2, 60, "a"), TraceRecord.timed("11", "u", "acct", 30, 8, 3600, "b"));
        assertThat(r.ignored()).as("cancelled before it ran").isEqualTo(1);

        String later = """
                {"meta": {}, "jobs": [
                  {"job_id": 7, "name": "n", "user": "u", "account": "a", "state": {"current": ["COMPLETED"], "reason": "None"},
                   "array": {"job_id": 0, "task_id": {"set": false, "infinite": false, "number": 0}},
                   "time": {"elapsed": 120, "submission": {"set": true, "infinite": false, "number": 1700000000}},
                   "tres": {"allocated": [{"type": "gres", "name": "gpu", "id": 1001, "count": 2}, {"type": "gres", "name": "gpu:h100", "id": 1002, "count": 2}]}},
                  {"job_id": 8, "name": "n", "user": "u", "account": "a", "state": {"current": ["RUNNING"], "reason": "None"},
                   "time": {"elapsed": 5, "submission": 1700000001}, "tres": {"allocated": []}}
                ], "errors": []}
                """;
        TraceReadResult j = SacctReader.read(file(dir, "later.json", later), BadRows.REJECT);
        assertThat(j.records()).containsExactly(TraceRecord.timed("7", "u", "a", 0, 2, 120, "n"));
        assertThat(j.ignored()).isEqualTo(1);
    }

    @Test
    void brokenRowsNameFileLineAndField() {
        String ok = "1|a|u|acct|gpu|COMPLETED|2026-01-01T00:00:00|s|e|60|gres/gpu=1|\n";
        String[][] bad = {
                {"2|a|u|acct|gpu|COMPLETED|2026-13-01T00:00:00|s|e|60|gres/gpu=1|\n", "Submit"},
                {"3|a|u|acct|gpu|COMPLETED|2026-01-01T00:00:00|s|e|1:00|gres/gpu=1|\n", "ElapsedRaw"},
                {"4|a|u|acct|gpu|COMPLETED|2026-01-01T00:00:00|s|e|-5|gres/gpu=1|\n", "ElapsedRaw"},
                {"5|a|u|acct|gpu|COMPLETED|2026-01-01T00:00:00|s|e|60|gres/gpu=two|\n", "AllocTRES"},
                {"|a|u|acct|gpu|COMPLETED|2026-01-01T00:00:00|s|e|60|gres/gpu=1|\n", "JobID"},
        };
        for (String[] b : bad) {
            DataSource src = file(dir, "sacct.txt", HEADER + ok + b[0]);
            assertThatThrownBy(() -> SacctReader.read(src, BadRows.REJECT)).as(b[1]).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("sacct.txt:3").hasMessageContaining("field '" + b[1] + "'");
        }
        StringBuilder all = new StringBuilder(HEADER).append(ok);
        for (String[] b : bad) all.append(b[0]);
        TraceReadResult r = SacctReader.read(file(dir, "sacct.txt", all.toString()), BadRows.SKIP);
        assertThat(r.records()).extracting(TraceRecord::id).containsExactly("1");
        assertThat(r.skipped()).isEqualTo(5);

        assertThatThrownBy(() -> SacctReader.read(file(dir, "cols.txt", "JobID|State|Submit\n1|COMPLETED|2026-01-01T00:00:00\n"), BadRows.SKIP))
                .hasMessageContaining("cols.txt:1").hasMessageContaining("'ElapsedRaw'");
    }

    @Test
    void brokenJsonNamesTheJobAndField() {
        String job = "{\"job_id\": 1, \"state\": {\"current\": \"COMPLETED\"}, \"time\": {\"elapsed\": %s, \"submission\": 1700000000},"
                + " \"tres\": {\"allocated\": [{\"type\": \"gres\", \"name\": \"gpu\", \"count\": 1}]}}";
        String text = "{\"jobs\": [\n" + job.formatted("10") + ",\n" + job.formatted("\"ten\"") + "\n]}";
        assertThatThrownBy(() -> SacctReader.read(file(dir, "bad.json", text), BadRows.REJECT))
                .hasMessageContaining("bad.json:3").hasMessageContaining("jobs[1].time.elapsed").hasMessageContaining("'ten' is not a whole number");
        assertThat(SacctReader.read(file(dir, "bad.json", text), BadRows.SKIP).skipped()).isEqualTo(1);
        assertThatThrownBy(() -> SacctReader.read(file(dir, "other.json", "{\"meta\": {}}"), BadRows.REJECT))
                .hasMessageContaining("not the output of sacct --json");
        assertThatThrownBy(() -> SacctReader.read(file(dir, "cut.json", "{\"jobs\": [" + job.formatted("1")), BadRows.REJECT))
                .hasMessageContaining("cut.json").hasMessageContaining("malformed JSON");
    }
}
