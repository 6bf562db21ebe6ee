package dev.tandem.sim.trace;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Gpu;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.tandem.sim.trace.TraceFixtures.file;
import static dev.tandem.sim.trace.TraceFixtures.shared;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AlibabaReadersTest {
    @TempDir Path dir;

    static final String POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

    @Test
    void readsTheDefaultPodList() {
        TraceReadResult r = AlibabaPodReader.read(shared("alibaba-openb/openb_pod_list_default.csv"), BadRows.REJECT);
        // 8,152 pods: 1,088 CPU-only and 861 more never scheduled (Pending) are ignored
        assertThat(r.records()).hasSize(6203);
        assertThat(r.ignored()).isEqualTo(1949);
        assertThat(r.skipped()).isZero();
        assertThat(r.timeOriginS()).isZero();
        assertThat(r.records().get(0)).isEqualTo(new TraceRecord("openb-pod-0000", "", "", 0, 1, 12537496, Double.NaN, "", 1.0));
        TraceRecord second = r.records().get(1);
        assertThat(second.id()).isEqualTo("openb-pod-0001");
        assertThat(second.submitTime()).isEqualTo(427061);
        assertThat(second.durationS()).isEqualTo(12902960 - 427061);
        assertThat(second.gpuFraction()).isEqualTo(0.46);
        TraceRecord eight = r.records().stream().filter(t -> t.gpus() == 8).findFirst().orElseThrow();
        assertThat(eight.id()).isEqualTo("openb-pod-0017");
        assertThat(eight.submitTime()).isEqualTo(9437497);
        assertThat(eight.durationS()).isEqualTo(1332357);
        assertThat(eight.gpuFraction()).isEqualTo(1.0);
        assertThat(r.records().stream().filter(t -> t.gpus() > 1).count()).isEqualTo(74);
        TraceRecord last = r.records().getLast();
        assertThat(last.id()).isEqualTo("openb-pod-8151");
        assertThat(last.durationS()).isEqualTo(30);
        assertThat(last.gpuFraction()).isEqualTo(0.59);
    }

    @Test
    void sortsAnUnorderedPodListBySubmission() {
        TraceReadResult r = AlibabaPodReader.read(shared("alibaba-openb/openb_pod_list_gpushare100.csv"), BadRows.REJECT);
        assertThat(r.records()).hasSize(5891);
        assertThat(r.ignored()).isEqualTo(2261);
        assertThat(r.records().get(0).id()).isEqualTo("openb-pod-1337"); // file order among pods created at 0
        assertThat(r.records()).isSortedAccordingTo((a, b) -> Double.compare(a.submitTime(), b.submitTime()));
        assertThat(r.records()).allMatch(t -> t.gpus() == 1 && t.gpuFraction() < 1);
    }

    @Test
    void refusesAPodListWithoutTimes() {
        DataSource noTimes = shared("alibaba-openb/openb_pod_list_multigpu50.csv"); // outside the lambda: a missing file skips
        assertThatThrownBy(() -> AlibabaPodReader.read(noTimes, BadRows.SKIP))
                .isInstanceOf(DataFormatException.class).hasMessageContaining("openb_pod_list_multigpu50.csv:1").hasMessageContaining("creation_time");
    }

    @Test
    void rejectsOrSkipsBrokenPods() {
        String good = "p-ok,1000,1024,1,500,,LS,Running,10,100,20\n";
        String[] bad = {
                "p-num,1000,1024,two,1000,,LS,Running,10,100,20\n",    // line 3: bad number
                "p-missing,1000,1024,1,1000,,LS,Running,,100,20\n",    // line 4: missing creation time
                "p-negative,1000,1024,1,1000,,LS,Running,10,15,20\n",  // line 5: deleted before scheduled
                "p-milli,1000,1024,1,1500,,LS,Running,10,100,20\n",    // line 6: more than one GPU's share
        };
        String ignoredRows = "p-cpu,1000,1024,0,0,,LS,Running,10,100,20\np-pending,1000,1024,1,1000,,BE,Pending,30,40,\n";
        String[] fields = {"num_gpu", "creation_time", "deletion_time", "gpu_milli"};
        for (int i = 0; i < bad.length; i++) {
            DataSource src = file(dir, "pods.csv", POD_HEADER + good + bad[i]);
            assertThatThrownBy(() -> AlibabaPodReader.read(src, BadRows.REJECT)).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("pods.csv:3").hasMessageContaining("field '" + fields[i] + "'");
        }
        TraceReadResult r = AlibabaPodReader.read(file(dir, "pods.csv", POD_HEADER + good + String.join("", bad) + ignoredRows), BadRows.SKIP);
        assertThat(r.records()).extracting(TraceRecord::id).containsExactly("p-ok");
        assertThat(r.records().get(0).durationS()).isEqualTo(80);
        assertThat(r.records().get(0).gpuFraction()).isEqualTo(0.5);
        assertThat(r.records().get(0).submitTime()).isZero(); // rebased to the earliest record
        assertThat(r.timeOriginS()).isEqualTo(10);
        assertThat(r.skipped()).isEqualTo(4);
        assertThat(r.ignored()).isEqualTo(2);
        assertThat(r.firstProblems()).hasSize(4);
        assertThat(r.firstProblems().get(1)).contains("pods.csv:4").contains("'creation_time'").contains("empty");
    }

    @Test
    void keepsOnlyTheFirstTenProblems() {
        String rows = "p,1,1,x,1,,LS,Running,1,2,1\n".repeat(25);
        TraceReadResult r = AlibabaPodReader.read(file(dir, "pods.csv", POD_HEADER + rows), BadRows.SKIP);
        assertThat(r.skipped()).isEqualTo(25);
        assertThat(r.firstProblems()).hasSize(TraceReadResult.MAX_PROBLEMS);
        assertThat(r.records()).isEmpty();
    }

    @Test
    void readsTheGpuNodeList() {
        Cluster c = AlibabaNodeReader.read(shared("alibaba-openb/openb_node_list_gpu_node.csv"));
        assertThat(c.nodes()).hasSize(1213);
        assertThat(c.gpuCount()).isEqualTo(6212);
        var first = c.nodes().get(0);
        assertThat(first.name()).isEqualTo("openb-node-0000");
        assertThat(first.gpus()).hasSize(2).allMatch(g -> g.type().name().equals("P100") && g.type().memoryMiB() == 16384);
        assertThat(first.cpus()).isEqualTo(64);
        assertThat(first.hostMemoryMiB()).isEqualTo(262144);
        Map<String, Long> gpusByModel = c.gpus().stream().collect(Collectors.groupingBy(g -> g.type().name(), Collectors.counting()));
        assertThat(gpusByModel).containsOnlyKeys("G2", "G3", "T4", "P100", "V100M16", "V100M32", "A10")
                .containsEntry("G2", 549L * 8).containsEntry("A10", 2L);
        assertThat(c.gpus()).filteredOn(g -> g.type().name().equals("V100M32")).allMatch(g -> g.type().memoryMiB() == 32 * 1024);
        assertThat(c.gpus()).filteredOn(g -> g.type().name().equals("A10")).allMatch(g -> g.type().memoryMiB() == 24 * 1024);
    }

    @Test
    void theAllNodeListGivesTheSameGpuNodes() {
        Cluster all = AlibabaNodeReader.read(shared("alibaba-openb/openb_node_list_all_node.csv"));
        assertThat(all.nodes()).hasSize(1213); // its 310 CPU-only nodes are left out
        assertThat(all.gpuCount()).isEqualTo(6212);
        assertThat(all.gpus()).extracting(Gpu::id).doesNotHaveDuplicates();
    }

    @Test
    void nodeListErrorsNameFileLineAndField() {
        String h = "sn,cpu_milli,memory_mib,gpu,model\n";
        assertThatThrownBy(() -> AlibabaNodeReader.read(file(dir, "nodes.csv", h + "n0,1000,1024,2,T4\nn1,1000,1024,8,H100\n")))
                .hasMessageContaining("nodes.csv:3").hasMessageContaining("field 'model'").hasMessageContaining("H100");
        Cluster c = AlibabaNodeReader.read(file(dir, "nodes.csv", h + "n0,1000,1024,2,T4\nn1,1000,1024,8,H100\n"), Map.of("H100", 80L * 1024, "T4", 15L * 1024));
        assertThat(c.gpu(9).type().memoryMiB()).isEqualTo(80 * 1024);
        assertThat(c.gpu(0).type().memoryMiB()).isEqualTo(15 * 1024);
        assertThat(c.gpu(9).node()).isEqualTo("n1");
        assertThatThrownBy(() -> AlibabaNodeReader.read(file(dir, "nodes.csv", h + "n0,1000,1024,-1,T4\n")))
                .hasMessageContaining("nodes.csv:2").hasMessageContaining("field 'gpu'");
        assertThatThrownBy(() -> AlibabaNodeReader.read(file(dir, "nodes.csv", h + "n0,1000,1024,2,\n")))
                .hasMessageContaining("field 'model'").hasMessageContaining("empty");
        assertThatThrownBy(() -> AlibabaNodeReader.read(file(dir, "nodes.csv", h + "n0,1000,1024,0,\n")))
                .hasMessageContaining("no node with GPUs");
    }
}
