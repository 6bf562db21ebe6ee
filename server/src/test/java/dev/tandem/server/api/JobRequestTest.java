package dev.tandem.server.api;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Without a signature, jobs are grouped by their command line minus what only sets length, seed or output. */
class JobRequestTest {
    private static String key(String... argv) { return JobRequest.defaultSignature(List.of(argv)).model(); }

    @Test
    void runsThatDifferInLengthSeedOrOutputAreOneWorkload() {
        String base = key("python", "train.py", "--model", "resnet50", "--batch-size", "64", "--epochs", "3", "--seed", "1");
        assertThat(key("python", "train.py", "--model", "resnet50", "--batch-size", "64", "--epochs", "5", "--seed", "2")).isEqualTo(base);
        assertThat(key("python", "train.py", "--model", "resnet50", "--batch-size", "64", "--epochs=10", "--seed=7", "--output-dir", "/tmp/x"))
                .isEqualTo(base);
        assertThat(key("python", "train.py", "--model", "resnet50", "--batch-size", "64", "--max_steps", "100", "--SEED", "3")).isEqualTo(base);
        assertThat(key("python", "train.py", "--model", "resnet50", "--batch-size", "64")).isEqualTo(base);
    }

    @Test
    void whatChangesTheComputationMakesAnotherWorkload() {
        String base = key("python", "train.py", "--model", "resnet50", "--batch-size", "64", "--epochs", "3");
        assertThat(key("python", "train.py", "--model", "resnet50", "--batch-size", "128", "--epochs", "3")).isNotEqualTo(base);
        assertThat(key("python", "train.py", "--model", "vgg16", "--batch-size", "64", "--epochs", "3")).isNotEqualTo(base);
        assertThat(key("python", "eval.py", "--model", "resnet50", "--batch-size", "64")).isNotEqualTo(base);
        assertThat(key("python", "train.py", "--model", "resnet50", "--batch-size", "64", "--amp")).isNotEqualTo(base);
        // an incidental option followed by another option has no value to drop; "--" ends the options
        assertThat(JobRequest.workloadArgs(List.of("run", "--resume", "--lr", "0.1"))).containsExactly("run", "--lr", "0.1");
        assertThat(JobRequest.workloadArgs(List.of("run", "--", "--epochs", "3"))).containsExactly("run", "--", "--epochs", "3");
        assertThat(JobRequest.workloadArgs(List.of("run", "--seed", "-1", "--lr", "0.1"))).as("a negative number is a value").containsExactly("run", "--lr", "0.1");
    }
}
