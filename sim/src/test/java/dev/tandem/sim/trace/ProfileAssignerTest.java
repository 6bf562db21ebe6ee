package dev.tandem.sim.trace;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import dev.tandem.data.GavelThroughputReader;
import dev.tandem.data.ProfileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static dev.tandem.sim.trace.TraceFixtures.file;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProfileAssignerTest {
    @TempDir Path dir;

    static final List<JobProfile> LUCID = ProfileReader.read(DataSource.LUCID_PROFILES, 0);
    static final GavelThroughputReader.GavelData GAVEL = GavelThroughputReader.read(DataSource.GAVEL_THROUGHPUTS, "v100");

    static TraceRecord rec(String id, int gpus, String jobType) {
        return TraceRecord.timed(id, "user", "vc", 0, gpus, 100, jobType);
    }

    static List<TraceRecord> records(int n) {
        return IntStream.range(0, n).mapToObj(i -> rec("job" + i, 1 << (i % 4), "")).toList();
    }

    @Test
    void theSeededRuleIsDeterministicAndStablePerRecord() {
        List<TraceRecord> all = records(2000);
        List<JobProfile> a = all.stream().map(r -> ProfileAssigner.seeded(LUCID, 7).assign(r).orElseThrow()).toList();
        ProfileAssigner same = ProfileAssigner.seeded(LUCID, 7);
        assertThat(all.stream().map(r -> same.assign(r).orElseThrow()).toList()).isEqualTo(a);
        // leaving records out (or reading them in another order) does not reshuffle the others
        ProfileAssigner again = ProfileAssigner.seeded(LUCID, 7);
        for (int i = all.size() - 1; i >= 0; i -= 3) assertThat(again.assign(all.get(i))).contains(a.get(i));
        // another seed gives another draw, and every profile is drawn
        ProfileAssigner other = ProfileAssigner.seeded(LUCID, 8);
        long differ = IntStream.range(0, all.size()).filter(i -> !other.assign(all.get(i)).orElseThrow().equals(a.get(i))).count();
        assertThat(differ).isGreaterThan(all.size() * 9 / 10);
        assertThat(new HashSet<>(a)).hasSize(LUCID.size());
        assertThat(same.assignment(all.get(0)).orElseThrow().rule()).isEqualTo(ProfileAssigner.Rule.SEEDED);
    }

    @Test
    void drawsOnlyProfilesThatSupportTheGangSize() {
        ProfileAssigner gavel = ProfileAssigner.forGavel(GAVEL, 1);
        Set<String> eightGpuModels = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            JobProfile p = gavel.assign(rec("g" + i, 8, "")).orElseThrow();
            assertThat(GAVEL.scales().get(p.signature())).contains(8);
            eightGpuModels.add(p.signature().model());
        }
        assertThat(eightGpuModels).containsExactlyInAnyOrder("ResNet-18", "ResNet-50", "Transformer", "LM");
        assertThat(gavel.assign(rec("big", 16, ""))).isEmpty();
        // a name match that does not support the size falls back to the seeded rule
        var a3c = gavel.assignment(rec("x", 8, "A3C")).orElseThrow();
        assertThat(a3c.rule()).isEqualTo(ProfileAssigner.Rule.SEEDED);
        assertThat(a3c.profile().signature().model()).isNotEqualTo("A3C");
    }

    @Test
    void gavelJobTypesAndLabelsMapByName() {
        ProfileAssigner gavel = ProfileAssigner.forGavel(GAVEL, 1);
        var resnet = gavel.assignment(rec("1", 4, "ResNet-18 (batch size 64)")).orElseThrow();
        assertThat(resnet.rule()).isEqualTo(ProfileAssigner.Rule.NAME);
        assertThat(resnet.profile().signature()).isEqualTo(new WorkloadSignature("ResNet-18", "CIFAR-10", 64, false));
        assertThat(gavel.assign(rec("2", 1, "A3C")).orElseThrow().signature().model()).isEqualTo("A3C");
        assertThat(gavel.assign(rec("3", 1, "Transformer/Multi30k/bs256")).orElseThrow().signature().batchSize()).isEqualTo(256);

        ProfileAssigner lucid = ProfileAssigner.seeded(LUCID, 1);
        // Muri's names: case and punctuation are ignored, the batch size must match, AMP on or off is drawn
        for (int i = 0; i < 20; i++) {
            var r = lucid.assignment(rec("m" + i, 2, "resnet18 (batch size 128)")).orElseThrow();
            assertThat(r.rule()).isEqualTo(ProfileAssigner.Rule.NAME);
            assertThat(r.profile().signature().model()).isEqualTo("ResNet18");
            assertThat(r.profile().signature().batchSize()).isEqualTo(128);
        }
        assertThat(lucid.assignment(rec("v", 1, "vgg16 (batch size 16)")).orElseThrow().rule()).isEqualTo(ProfileAssigner.Rule.SEEDED);
    }

    static final String MAPPING_HEADER = "pattern,model,dataset,batchsize,amp\n";

    @Test
    void theUsersMappingComesFirst() {
        DataSource mapping = file(dir, "map.csv", MAPPING_HEADER
                + "ResNet-18.*,BERT,SQuAD,32,0\n"
                + "ResNet.*,DCGAN,LSUN,32,1\n"
                + "6214e9,VGG,CIFAR-10,64,1\n");
        ProfileAssigner a = ProfileAssigner.seeded(LUCID, 3).withMapping(mapping);
        var first = a.assignment(rec("1", 1, "ResNet-18 (batch size 64)")).orElseThrow();
        assertThat(first.rule()).isEqualTo(ProfileAssigner.Rule.MAPPING);
        assertThat(first.profile().signature().label()).isEqualTo("BERT/SQuAD/bs32"); // the first matching row wins
        assertThat(a.assign(rec("2", 1, "ResNet-50 (batch size 64)")).orElseThrow().signature().label()).isEqualTo("DCGAN/LSUN/bs32/amp");
        // the pattern must match the whole job type
        assertThat(a.assignment(rec("3", 1, "my ResNet-50")).orElseThrow().rule()).isNotEqualTo(ProfileAssigner.Rule.MAPPING);
        // without a job type the pattern is tried on the user, then on the vc
        TraceRecord philly = TraceRecord.timed("4", "6214e9", "6214e9", 0, 1, 60, "");
        assertThat(a.assign(philly).orElseThrow().signature().label()).isEqualTo("VGG/CIFAR-10/bs64/amp");
        TraceRecord helios = TraceRecord.timed("5", "uX", "6214e9", 0, 1, 60, "");
        assertThat(a.assignment(helios).orElseThrow().rule()).isEqualTo(ProfileAssigner.Rule.MAPPING);
        // unmatched records fall back to the seeded rule, the same draw as without a mapping
        TraceRecord other = TraceRecord.timed("6", "uY", "vcZ", 0, 1, 60, "");
        assertThat(a.assignment(other).orElseThrow().rule()).isEqualTo(ProfileAssigner.Rule.SEEDED);
        assertThat(a.assign(other)).isEqualTo(ProfileAssigner.seeded(LUCID, 3).assign(other));
    }

    @Test
    void aMappedProfileMustSupportTheGangSize() {
        DataSource mapping = file(dir, "map.csv", MAPPING_HEADER + ".*,A3C,Pong,0,0\n");
        ProfileAssigner a = ProfileAssigner.forGavel(GAVEL, 3).withMapping(mapping);
        assertThat(a.assign(rec("1", 1, "anything")).orElseThrow().signature().model()).isEqualTo("A3C");
        assertThat(a.assignment(rec("2", 2, "anything")).orElseThrow().rule()).isEqualTo(ProfileAssigner.Rule.SEEDED);
    }

    @Test
    void badMappingRowsNameFileLineAndField() {
        ProfileAssigner a = ProfileAssigner.seeded(LUCID, 3);
        String ok = "ResNet.*,BERT,SQuAD,32,0\n";
        String[][] bad = {
                {"(unclosed,BERT,SQuAD,32,0\n", "pattern"},
                {"x,NoSuchModel,SQuAD,32,0\n", "model"},
                {"x,BERT,SQuAD,thirty-two,0\n", "batchsize"},
                {"x,BERT,SQuAD,32,maybe\n", "amp"},
                {"x,BERT,SQuAD,64,0\n", "model"}, // no BERT with batch size 64
        };
        for (String[] b : bad) {
            DataSource src = file(dir, "map.csv", MAPPING_HEADER + ok + b[0]);
            assertThatThrownBy(() -> a.withMapping(src)).as(b[1]).isInstanceOf(DataFormatException.class)
                    .hasMessageContaining("map.csv:3").hasMessageContaining("field '" + b[1] + "'");
        }
        assertThatThrownBy(() -> a.withMapping(file(dir, "map.csv", "pattern,model\nx,BERT\n")))
                .hasMessageContaining("map.csv:1").hasMessageContaining("required column missing");
    }
}
