package dev.tandem.data;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadersTest {
    @TempDir Path dir;

    private DataSource file(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content);
        return DataSource.of(p);
    }

    static final String HEADER = "model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem,label\n";

    @Test
    void readsTheBundledLucidProfiles() {
        List<JobProfile> ps = ProfileReader.read(DataSource.LUCID_PROFILES, 24576);
        assertThat(ps).hasSize(53);
        JobProfile bert = ps.get(0);
        assertThat(bert.signature().label()).isEqualTo("BERT/SQuAD/bs32");
        assertThat(bert.soloSpeed()).isEqualTo(84.872);
        assertThat(bert.gmemMiB()).isEqualTo(20162.0);
        assertThat(bert.shareLabel()).isEqualTo(2);
    }

    @Test
    void profileErrorsNameFileLineAndField() throws IOException {
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER + "A,D,32,0,10,50,20,1000,0\nB,D,32,0,10,120,20,1000,0\n"), 0))
                .isInstanceOf(DataFormatException.class).hasMessageContaining("p.csv:3").hasMessageContaining("field 'gpu_util'").hasMessageContaining("120");
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER + "A,D,32,0,-5,50,20,1000,0\n"), 0))
                .hasMessageContaining(":2").hasMessageContaining("'speed'").hasMessageContaining("positive");
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER + "A,D,32,0,ten,50,20,1000,0\n"), 0))
                .hasMessageContaining("'ten' is not a number");
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER + "A,D,32,0,10,50,20,30000,0\n"), 24576))
                .hasMessageContaining("'gmem'").hasMessageContaining("more than the GPU's 24576 MiB");
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER + "A,D,32,0,10,50,,1000,0\n"), 0))
                .hasMessageContaining("'gmem_util'").hasMessageContaining("empty");
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", "model,dataset,batchsize,amp,speed\nA,D,32,0,10\n"), 0))
                .hasMessageContaining(":1").hasMessageContaining("required column missing");
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER + "A,D,32,0,10,50,20,1000,0\nA,D,32,0,11,50,20,1000,0\n"), 0))
                .hasMessageContaining(":3").hasMessageContaining("duplicate profile");
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER + "A,D,32,maybe,10,50,20,1000,0\n"), 0))
                .hasMessageContaining("'amp'");
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER), 0)).hasMessageContaining("no profiles");
        // a model name with an unquoted comma: every later field moves one column on
        assertThatThrownBy(() -> ProfileReader.read(file("p.csv", HEADER + "A,D,32,0,10,50,20,1000,0\nB,x,D,32,0,10,50,20,1000,0\n"), 0))
                .isInstanceOf(DataFormatException.class).hasMessageContaining("p.csv:3: the row has 10 fields where the header names 9");
        assertThatThrownBy(() -> ProfileReader.read(DataSource.of(dir.resolve("missing.csv").toString()), 0))
                .hasMessageContaining("missing.csv").hasMessageContaining("file not found");
        assertThatThrownBy(() -> ProfileReader.read(file("q.csv", HEADER + "\"A,D,32,0,10,50,20,1000,0\n"), 0))
                .isInstanceOf(DataFormatException.class).hasMessageContaining("q.csv");
    }

    @Test
    void profilesRoundTripThroughCsvAndJson() throws IOException {
        List<JobProfile> ps = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
        Path out = dir.resolve("out.csv");
        try (var w = Files.newBufferedWriter(out)) {
            ProfileReader.writeCsv(ps, w);
        }
        assertThat(ProfileReader.read(DataSource.of(out), 0)).isEqualTo(ps);
        DataSource json = file("p.json", "[{\"model\":\"A\",\"dataset\":\"D\",\"batchsize\":32,\"amp\":1,\"speed\":10,\"gpu_util\":50,\"gmem_util\":20,\"gmem\":1000}]");
        assertThat(ProfileReader.read(json, 0).get(0).signature().amp()).isTrue();
        assertThatThrownBy(() -> ProfileReader.read(file("b.json", "[{\"model\":\"A\",\"speed\":10,\"gpu_util\":500,\"gmem_util\":20,\"gmem\":1}]"), 0))
                .hasMessageContaining("profile #1").hasMessageContaining("gpu_util");
        assertThatThrownBy(() -> ProfileReader.read(file("c.json", "[{\"model\":\"A\",\n\"speed\": }]"), 0))
                .hasMessageContaining("c.json:2").hasMessageContaining("malformed JSON");
    }

    @Test
    void readsLucidPairsAndRejectsBadRows() throws IOException {
        List<MeasuredPair> pairs = LucidPairReader.read(DataSource.LUCID_PAIRS, true);
        assertThat(pairs).hasSize(946);
        assertThat(pairs.get(0).speedA()).isEqualTo(0.983);
        assertThat(pairs.get(0).pairMemoryMiB()).isEqualTo(5106);
        String h = ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,speed2,gpu_util,gmem_util,gmem\n";
        assertThatThrownBy(() -> LucidPairReader.read(file("x.csv", h + "0,A,D,1,32,0,3.5,B,D,1,32,0,0.9,50,20,3000\n"), true))
                .hasMessageContaining("x.csv:2").hasMessageContaining("'speed1'");
        assertThatThrownBy(() -> LucidPairReader.read(file("x.csv", h + "0,A,D,1,32,0,0.9,B,D,2,32,0,0.9,50,20,3000\n"), true))
                .hasMessageContaining("'gpu_num2'");
        assertThatThrownBy(() -> LucidPairReader.read(file("x.csv", h + "0,A,D,1,-32,0,0.9,B,D,1,32,0,0.9,50,20,3000\n"), true))
                .hasMessageContaining("'batchsize1'");
        // for prediction the speed columns may be missing altogether
        String noSpeed = "model1,dataset1,batchsize1,amp1,model2,dataset2,batchsize2,amp2\nA,D,32,0,B,D,32,1\n";
        assertThat(LucidPairReader.read(file("y.csv", noSpeed), false).get(0).b().amp()).isTrue();
        assertThatThrownBy(() -> LucidPairReader.read(file("y.csv", noSpeed), true)).hasMessageContaining("'speed1'");
    }

    @Test
    void readsGavelThroughputs() throws IOException {
        GavelThroughputReader.GavelData g = GavelThroughputReader.read(DataSource.GAVEL_THROUGHPUTS, "v100");
        assertThat(g.profiles()).hasSize(26);
        assertThat(g.profiles().get(0).signature().label()).isEqualTo("ResNet-18/CIFAR-10/bs16");
        assertThat(g.scales().get(g.profiles().get(0).signature())).containsExactly(1, 2, 4, 8);
        assertThat(g.pairs()).anyMatch(MeasuredPair::infeasible);
        assertThat(g.pairs()).allMatch(p -> p.infeasible() || (p.speedA() >= 0 && p.speedA() <= 1.0 + 1e-9));
        assertThatThrownBy(() -> GavelThroughputReader.read(DataSource.GAVEL_THROUGHPUTS, "h100")).hasMessageContaining("no such GPU type").hasMessageContaining("v100");
        assertThatThrownBy(() -> GavelThroughputReader.read(file("g.json", "{\"v100\": {\"ResNet\": {\"null\": 1}}}"), "v100"))
                .hasMessageContaining("not ('NAME', SCALE)");
        assertThatThrownBy(() -> GavelThroughputReader.read(file("g.json", "{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('A', 1)\": [1]}}}"), "v100"))
                .hasMessageContaining("pair [a, b]");
        assertThatThrownBy(() -> GavelThroughputReader.read(file("g.json", "{\"v100\": {\"('A', 1)\": {\"null\": -1}}}"), "v100"))
                .hasMessageContaining("missing or negative solo");
        assertThatThrownBy(() -> GavelThroughputReader.read(file("g.json", "{\"v100\": {\"('A', 1)\": {\"null\": \"fast\"}}}"), "v100"))
                .hasMessageContaining("missing or negative solo");
        // a solo throughput of 0: the job type does not run at that scale on that GPU (Gavel's K80 column): left out, with its pairs
        GavelThroughputReader.GavelData k80 = GavelThroughputReader.read(DataSource.GAVEL_THROUGHPUTS, "k80");
        WorkloadSignature big = k80.profiles().stream().map(p -> p.signature()).filter(sig -> sig.label().equals("ResNet-50/ImageNet/bs128")).findFirst().orElseThrow();
        assertThat(k80.scales().get(big)).containsExactly(1);
        assertThat(k80.pairs()).noneMatch(p -> (p.a().equals(big) || p.b().equals(big)) && p.gpus() > 1);
        assertThat(k80.pairs()).anyMatch(p -> p.a().equals(big) && p.gpus() == 1);
        assertThatThrownBy(() -> GavelThroughputReader.read(file("g.json", "{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('B', 1)\": [0.5, 0.5]}}}"), "v100"))
                .as("a partner missing from the file is still an error").hasMessageContaining("partner has no solo throughput");
        assertThatThrownBy(() -> GavelThroughputReader.read(file("g.json", "{\"v100\": "), "v100")).hasMessageContaining("malformed JSON");
    }

    @Test
    void readsClusterYamlAndRejectsBadFields() throws IOException {
        Cluster c = ClusterFileReader.read(file("c.yaml", "nodes:\n  - name: dgx\n    count: 2\n    gpus: 8\n    gpu_type: A100\n    gpu_memory_gb: 80\n  - name: small\n    gpus: 2\n    gpu_type: T4\n    gpu_memory_gb: 16\n"));
        assertThat(c.gpuCount()).isEqualTo(18);
        assertThat(c.nodes().get(1).name()).isEqualTo("dgx-1");
        assertThat(c.gpu(17).type().memoryMiB()).isEqualTo(16 * 1024);
        assertThatThrownBy(() -> ClusterFileReader.read(file("c.yaml", "nodes:\n  - name: a\n    gpus: 8\n    gpu_type: A100\n    gpu_memory_gb: 80\n    colour: red\n")))
                .hasMessageContaining("c.yaml:6").hasMessageContaining("colour");
        assertThatThrownBy(() -> ClusterFileReader.read(file("c.yaml", "nodes:\n  - name: a\n    gpus: 8\n    gpu_type: A100\n")))
                .hasMessageContaining("gpu_memory_gb");
        assertThatThrownBy(() -> ClusterFileReader.read(file("c.yaml", "nodes:\n  - name: a\n    count: 0\n    gpus: 8\n    gpu_type: A\n    gpu_memory_gb: 8\n")))
                .hasMessageContaining("nodes[0].count");
        assertThatThrownBy(() -> ClusterFileReader.read(file("c.yaml", "nodes:\n  - name: a\n    gpus: many\n    gpu_type: A\n    gpu_memory_gb: 8\n")))
                .hasMessageContaining("c.yaml:3");
    }
}
