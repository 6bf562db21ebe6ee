package dev.tandem.core.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterTest {
    @Test
    void parsesCompactSpecs() {
        Cluster c = Cluster.parse("4x8:RTX3090-24GB");
        assertThat(c.gpuCount()).isEqualTo(32);
        assertThat(c.nodes()).hasSize(4);
        assertThat(c.gpu(31).type()).isEqualTo(new GpuType("RTX3090", 24 * 1024));
        Cluster mixed = Cluster.parse("1x8:V100-16GB+2x4:A100-81920MB");
        assertThat(mixed.gpuCount()).isEqualTo(16);
        assertThat(mixed.gpu(8).type().memoryMiB()).isEqualTo(81920);
        assertThat(mixed.gpu(8).node()).isNotEqualTo(mixed.gpu(7).node());
    }

    @Test
    void rejectsBadSpecsClearly() {
        assertThatThrownBy(() -> Cluster.parse("8 GPUs")).hasMessageContaining("'8 GPUs'").hasMessageContaining("NODESxGPUS:TYPE-MEM");
        assertThatThrownBy(() -> Cluster.parse("0x8:V100-16GB")).hasMessageContaining("at least one node");
    }

    @Test
    void profilesRejectImpossibleValues() {
        WorkloadSignature s = new WorkloadSignature("M", "D", 32, false);
        assertThatThrownBy(() -> JobProfile.basic(s, -1, 50, 50, 100)).hasMessageContaining("solo speed");
        assertThatThrownBy(() -> JobProfile.basic(s, 1, 101, 50, 100)).hasMessageContaining("gpu_util");
        assertThatThrownBy(() -> JobProfile.basic(s, 1, 50, -3, 100)).hasMessageContaining("gmem_util");
        assertThatThrownBy(() -> JobProfile.basic(s, 1, 50, 50, -100)).hasMessageContaining("gmem");
        assertThatThrownBy(() -> new Job("x", "u", 0, 0, s, 10, 0, 0)).hasMessageContaining("at least one GPU");
    }
}
