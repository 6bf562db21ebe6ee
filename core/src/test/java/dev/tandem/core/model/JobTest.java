package dev.tandem.core.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JobTest {
    static Job job(String id, double submit) {
        return new Job(id, "u", submit, 1, new WorkloadSignature("M", "D", 32, false), 100, 0, 0);
    }

    @Test
    void submissionOrderIsByTimeThenByIdAsANumberWouldBeInEveryWorld() {
        assertThat(job("a", 2).submittedAfter(job("b", 1))).isTrue();
        assertThat(job("b", 1).submittedAfter(job("a", 2))).isFalse();
        // the daemon's ids are numbers: 10 comes after 9, not before it as text would have it
        assertThat(job("10", 0).submittedAfter(job("9", 0))).isTrue();
        assertThat(job("9", 0).submittedAfter(job("10", 0))).isFalse();
        // the simulator's are zero-padded: the same order
        assertThat(job("j010", 0).submittedAfter(job("j009", 0))).isTrue();
        assertThat(job("j009", 0).submittedAfter(job("j009", 0))).isFalse();
    }
}
