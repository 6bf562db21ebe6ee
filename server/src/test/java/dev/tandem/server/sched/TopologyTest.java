package dev.tandem.server.sched;

import dev.tandem.core.model.Cluster;
import dev.tandem.server.exec.GpuDevice;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The daemon's cluster is the executor's GPUs grouped by node, and a job's GPUs stay on one node. */
class TopologyTest {
    static GpuDevice gpu(int index, String node) { return new GpuDevice(index, node, "uuid-" + index, "T", 24_576); }

    @Test
    void devicesAreGroupedByNodeInTheirOrder() {
        Cluster c = Context.clusterOf(List.of(gpu(0, "node1"), gpu(1, "node1"), gpu(2, "node2"), gpu(3, "node2"), gpu(4, "node2")));
        assertThat(c.nodes()).extracting(n -> n.name()).containsExactly("node1", "node2");
        assertThat(c.nodes().get(1).gpus()).extracting(g -> g.id()).containsExactly(2, 3, 4);
        assertThat(c.nodes().get(1).gpus()).extracting(g -> g.index()).as("index on the node").containsExactly(0, 1, 2);
        assertThat(c.gangsSpanNodes()).isFalse();
        assertThat(c.widestJob()).isEqualTo(3);
    }

    @Test
    void aNodeWhoseGpusAreNotListedTogetherIsRefused() {
        assertThatThrownBy(() -> Context.clusterOf(List.of(gpu(0, "a"), gpu(1, "b"), gpu(2, "a"))))
                .hasMessage("GPUs of node a are not listed together");
    }
}
