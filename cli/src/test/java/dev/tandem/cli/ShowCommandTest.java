package dev.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code tandem show} says of a job's progress against the length it declared. */
class ShowCommandTest {
    private static ObjectNode job(Long declared, Long progress) {
        ObjectNode j = new ObjectMapper().createObjectNode();
        if (declared == null) j.putNull("iterations");
        else j.put("iterations", declared);
        if (progress == null) j.putNull("progress_iter");
        else j.put("progress_iter", progress);
        return j;
    }

    @Test
    void progressIsShownAgainstTheDeclaredLengthAndSaysHowAJobOfUnknownLengthIsScheduled() {
        assertThat(ShowCommand.progress(job(null, null))).isNull();
        assertThat(ShowCommand.progress(job(2000L, null))).isEqualTo("none yet (2000 iterations declared)");
        assertThat(ShowCommand.progress(job(2000L, 1500L))).isEqualTo("iteration 1500 of 2000");
        assertThat(ShowCommand.progress(job(2000L, 2000L))).isEqualTo("iteration 2000 of 2000");
        assertThat(ShowCommand.progress(job(2000L, 2001L))).isEqualTo("iteration 2001, past the 2000 declared: scheduled as needing as long as it has run");
        assertThat(ShowCommand.progress(job(null, 6L))).isEqualTo("iteration 6 (no length declared: scheduled as needing as long as it has run)");
    }
}
