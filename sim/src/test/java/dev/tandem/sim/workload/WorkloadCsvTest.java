package dev.tandem.sim.workload;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkloadCsvTest {
    static final List<JobProfile> LUCID = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
    static final ProfileStore PROFILES = new ProfileStore(LUCID);

    @TempDir Path dir;

    private DataSource file(String content) throws Exception {
        Path p = dir.resolve("w.csv");
        Files.writeString(p, content);
        return DataSource.of(p.toString());
    }

    @Test
    void writtenJobsReadBackIdentically() throws Exception {
        List<Job> jobs = WorkloadGenerator.generate(WorkloadSpec.of(300, "poisson:7", "1:0.7,2:0.1,4:0.15,8:0.05", 1800, 57600, 5), LUCID, (p, s) -> true);
        StringWriter out = new StringWriter();
        WorkloadCsv.write(jobs, out);
        assertThat(WorkloadCsv.read(file(out.toString()), PROFILES)).isEqualTo(jobs);
    }

    @Test
    void durationIsSoloTimeAtTheProfilesSpeedAndFileOrderIsKept() throws Exception {
        JobProfile p = LUCID.get(0);
        var s = p.signature();
        String row = "," + s.model() + "," + s.dataset() + "," + s.batchSize() + "," + (s.amp() ? 1 : 0);
        List<Job> jobs = WorkloadCsv.read(file("id,submit_s,gpus,model,dataset,batchsize,amp,duration_s,iterations\n"
                + "b,0,1" + row + ",100,\n"
                + "a,0,2" + row + ",,5000\n"), PROFILES);
        assertThat(jobs).extracting(Job::id).containsExactly("b", "a");
        assertThat(jobs.get(0).totalIterations()).isEqualTo(100 * p.soloSpeed());
        assertThat(jobs.get(1).totalIterations()).isEqualTo(5000);
        assertThat(jobs.get(1).gpus()).isEqualTo(2);
        assertThat(jobs.get(0).user()).isEmpty();
    }

    @Test
    void badRowsNameFileLineAndField() throws Exception {
        JobProfile p = LUCID.get(0);
        var s = p.signature();
        String sig = s.model() + "," + s.dataset() + "," + s.batchSize() + "," + (s.amp() ? 1 : 0);
        String head = "id,submit_s,gpus,model,dataset,batchsize,amp,iterations,duration_s\n";
        record Case(String body, String field, String problem) {}
        for (Case c : List.of(
                new Case("a,0,1," + sig + ",10,\na,1,1," + sig + ",10,\n", "id", "appears twice"),
                new Case("a,0,1,NoSuchNet,x,1,0,10,\n", "model", "no profile for workload NoSuchNet/x/bs1"),
                new Case("a,0,1," + sig + ",10,20\n", "duration_s", "exactly one of"),
                new Case("a,0,1," + sig + ",,\n", "iterations", "exactly one of"),
                new Case("a,-5,1," + sig + ",10,\n", "submit_s", "must not be negative"),
                new Case("a,0,0," + sig + ",10,\n", "gpus", "at least 1"),
                new Case("a,0,1," + sig + ",-3,\n", "iterations", "must be positive"),
                new Case("a,0,1," + s.model() + "," + s.dataset() + "," + s.batchSize() + ",maybe,10,\n", "amp", "not a flag"))) {
            assertThatThrownBy(() -> WorkloadCsv.read(file(head + c.body()), PROFILES)).as(c.body())
                    .isInstanceOf(DataFormatException.class).hasMessageContaining("w.csv").hasMessageContaining(c.field()).hasMessageContaining(c.problem());
        }
        assertThatThrownBy(() -> WorkloadCsv.read(file("id,submit_s,model\n"), PROFILES)).hasMessageContaining("gpus").hasMessageContaining("missing");
        assertThatThrownBy(() -> WorkloadCsv.read(file(head), PROFILES)).hasMessageContaining("no jobs");
    }
}
