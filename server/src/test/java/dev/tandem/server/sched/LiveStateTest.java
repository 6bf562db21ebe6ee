package dev.tandem.server.sched;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a round publishes of its waiting jobs: ids and reasons, each job's view made when asked for. */
class LiveStateTest {
    @Test
    void aWaitingJobIsFoundByIdWithItsPositionAndReason() {
        LiveState.Waiting w = new LiveState.Waiting(new long[] {12, 7, 30}, new String[] {"waits for a partner", null, "held; `tandem release 30` lets it run"});
        LiveState live = new LiveState(5, List.of(), Map.of(), w);
        assertThat(live.queueLength()).isEqualTo(3);
        assertThat(live.job(7).queuePosition()).isEqualTo(2);
        assertThat(live.job(7).reason()).as("beyond the explained ones: its position").isEqualTo("position 2 in the queue");
        assertThat(live.job(12).reason()).isEqualTo("waits for a partner");
        assertThat(live.job(30).explanation()).startsWith("held");
        assertThat(live.job(99)).isNull();
        assertThat(w.inOrder()).extracting(LiveState.JobLive::jobId).containsExactly(12L, 7L, 30L);
        assertThat(w.inOrder()).extracting(LiveState.JobLive::queuePosition).containsExactly(1, 2, 3);
        assertThat(LiveState.EMPTY.queueLength()).isZero();
        assertThat(LiveState.EMPTY.job(1)).isNull();
        assertThatThrownBy(() -> new LiveState.Waiting(new long[2], new String[1])).isInstanceOf(IllegalArgumentException.class);
    }
}
