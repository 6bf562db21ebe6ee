package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.tandem.cli.CliTest.tandem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tandem sweep --executor slurm} against the real Slurm that {@code .ci/slurm-up.sh} starts (2 nodes): runs
 * only where SLURM_CONF names a cluster. The array's tasks are this JVM's java and class path on the same machine.
 */
@EnabledIfEnvironmentVariable(named = "SLURM_CONF", matches = ".+")
class SweepOnSlurmTest {
    @TempDir Path dir;

    static final String[] GRID = {"sweep", "--policy", "fifo,tandem", "--loads", "batch,poisson:2", "--seeds", "2", "--jobs", "20"};

    static String[] with(String... more) {
        String[] out = java.util.Arrays.copyOf(GRID, GRID.length + more.length);
        System.arraycopy(more, 0, out, GRID.length, more.length);
        return out;
    }

    @Test
    void aSweepRunAsAJobArrayGivesTheSamePointsAsOnThisMachine() throws Exception {
        Path work = dir.resolve("work"), onSlurm = dir.resolve("slurm.json"), local = dir.resolve("local.json");
        CliTest.Run s = tandem(with("--executor", "slurm", "--work-dir", work.toString(), "--output-json", onSlurm.toString()));
        assertThat(s.code()).as(s.out() + s.err()).isZero();
        assertThat(s.out()).contains("as a Slurm array of 4 tasks").containsPattern("Slurm job array \\d+: 4 tasks");
        for (int i = 0; i < 4; i++) {
            assertThat(work.resolve("task-" + i + ".json")).exists();
            assertThat(Files.readString(work.resolve("task-" + i + ".log"))).contains("task " + i + ": done");
        }
        CliTest.Run l = tandem(with("--output-json", local.toString()));
        assertThat(l.code()).as(l.err()).isZero();
        ObjectMapper json = new ObjectMapper();
        JsonNode slurmPoints = json.readTree(onSlurm.toFile()).get("points"), localPoints = json.readTree(local.toFile()).get("points");
        assertThat(slurmPoints).hasSize(4);
        assertThat(slurmPoints).as("the same simulations, so the same means and intervals").isEqualTo(localPoints);

        CliTest.Run again = tandem(with("--executor", "slurm", "--work-dir", work.toString()));
        assertThat(again.code()).isEqualTo(2);
        assertThat(again.err()).contains("holds results of an earlier sweep");
    }

    @Test
    void whatSlurmRefusesIsReportedAndSlurmOptionsNeedSlurm() {
        CliTest.Run bad = tandem(with("--executor", "slurm", "--partition", "no-such-partition", "--work-dir", dir.resolve("w").toString()));
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).startsWith("tandem: error: sbatch").contains("partition").doesNotContain("\tat ");
        CliTest.Run local = tandem(with("--partition", "gpu"));
        assertThat(local.code()).isEqualTo(2);
        assertThat(local.err()).contains("--partition and --work-dir are for --executor slurm");
        CliTest.Run task = tandem(with("--array-task-dir", dir.toString()));
        assertThat(task.code()).isEqualTo(2);
        assertThat(task.err()).contains("SLURM_ARRAY_TASK_ID");
    }
}
