package dev.tandem.server.exec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;

/** The progress protocol and the out-of-memory markers, read incrementally from a job's output. */
class LogScannerTest {
    @TempDir Path dir;

    @Test
    void readsProgressLinesAcrossPartialWritesAndSpotsOutOfMemory() throws Exception {
        Path log = dir.resolve("out.log");
        Files.writeString(log, "previous attempt: tandem:progress iter=999\n");
        LogScanner s = new LogScanner(log, Files.size(log));
        Files.writeString(log, "epoch 1\ntandem:progress iter=10\n  tandem:progress iter=20 loss=0.3\ntandem:prog", StandardOpenOption.APPEND);
        assertThat(s.scan()).containsExactly(10L, 20L);
        Files.writeString(log, "ress iter=30\nnot tandem:progress iter=40\ntandem:progress iter=x\n", StandardOpenOption.APPEND);
        assertThat(s.scan()).containsExactly(30L);
        assertThat(s.oomSeen()).isFalse();
        Files.writeString(log, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", StandardOpenOption.APPEND);
        assertThat(s.scan()).isEmpty();
        assertThat(s.oomSeen()).isFalse(); // the line has not ended yet
        assertThat(s.finish()).isEmpty();
        assertThat(s.oomSeen()).isTrue();
    }

    @Test
    void recognisesTheDriverAndRuntimeMessagesToo() throws Exception {
        Path log = dir.resolve("jax.log");
        Files.writeString(log, "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n");
        LogScanner s = new LogScanner(log, 0);
        s.scan();
        assertThat(s.oomSeen()).isTrue();
    }

    @Test
    void recognisesSlurmKillingTheJobForItsHostMemoryAndOnlyFromSlurmsStepDaemon() throws Exception {
        // what Slurm 22.05's slurmstepd wrote into a job's output when JobAcctGatherParams=OverMemoryKill killed it (CI cluster)
        String recorded;
        try (var in = LogScannerTest.class.getResourceAsStream("/slurm/output-over-memory.log")) {
            recorded = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        Path log = dir.resolve("slurm.log");
        Files.writeString(log, recorded);
        LogScanner s = new LogScanner(log, 0);
        s.finish();
        assertThat(s.slurmMemoryKillSeen()).isTrue();
        assertThat(s.oomSeen()).isFalse(); // host memory, not the GPU's

        Path own = dir.resolve("own.log");
        Files.writeString(own, "my job says: Exceeded job memory limit\nslurmstepd-node1: error: *** JOB 2 ON node1 CANCELLED AT 2026-12-07T10:33:46 ***\n");
        LogScanner t = new LogScanner(own, 0);
        t.finish();
        assertThat(t.slurmMemoryKillSeen()).isFalse();
    }
}
