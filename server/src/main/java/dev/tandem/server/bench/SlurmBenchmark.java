package dev.tandem.server.bench;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.ServerConfig;
import dev.tandem.server.ServerLogging;
import dev.tandem.server.TandemServer;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.exec.slurm.SlurmSettings;
import dev.tandem.server.sched.SchedulerConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Measures tandem serve with {@code --executor slurm} (not a test): how many short jobs per second go through
 * Slurm (all submitted at once, until the last succeeded), and the latency from tandem's decision to start a job
 * (its {@code started_at}) to the job's first instruction inside Slurm (the job writes its own clock). Needs
 * Slurm's clients on PATH and SLURM_CONF, e.g. after {@code .ci/slurm-up.sh}:
 * {@code java -cp cli/target/tandem.jar dev.tandem.server.bench.SlurmBenchmark [jobs]} (default 100).
 */
public final class SlurmBenchmark {

    private SlurmBenchmark() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        ServerLogging.configure(Level.WARN);
        Path state = Files.createTempDirectory("tandem-slurm-bench");
        Path marks = Files.createDirectories(state.resolve("marks"));
        ServerConfig cfg = new ServerConfig(state, "127.0.0.1", 0, null, "fifo", Sharing.TIME_SLICING, 50,
                new SchedulerConfig(100, 1000, 1000, 1000, 1, 512), 2000, 64 * 1024, true, ToolPath.fromEnvironment(), "slurm", SlurmSettings.defaults());
        try (TandemServer server = TandemServer.start(cfg)) {
            String token = Files.readString(server.adminTokenFile()).strip();
            int gpus = BenchClient.get(server.url(), token, "/gpus").get("gpus").size();
            System.out.printf(Locale.ROOT, "tandem -> Slurm benchmark: %d jobs of 'date' over %d GPU(s), policy fifo, tick 100 ms; state under %s%n", n, gpus, state);
            String body = "{\"argv\": [\"/bin/bash\", \"-c\", \"date +%s%3N > " + marks + "/$TANDEM_JOB_ID\"], \"workdir\": \"" + state
                    + "\", \"signature\": {\"model\": \"bench\"}}";
            long t0 = System.nanoTime();
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) ids.add(BenchClient.submit(server.url(), token, body).get("id").asLong());
            double[] ms = new double[n];
            for (int i = 0; i < n; i++) {
                long id = ids.get(i);
                JsonNode job;
                while (!(job = BenchClient.get(server.url(), token, "/jobs/" + id)).get("state").asText().matches("succeeded|failed|cancelled")) Thread.sleep(20);
                if (!job.get("state").asText().equals("succeeded")) throw new IllegalStateException("job " + id + " " + job.get("state") + ": " + job.get("reason"));
                long ranAt = Long.parseLong(Files.readString(marks.resolve(String.valueOf(id))).strip());
                ms[i] = ranAt - Instant.parse(job.get("started_at").asText()).toEpochMilli();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Arrays.sort(ms);
            System.out.printf(Locale.ROOT, "throughput: %d jobs through Slurm in %.2f s = %.1f jobs/s%n", n, seconds, n / seconds);
            System.out.printf(Locale.ROOT, "decision-to-start latency (tandem started_at -> first instruction in Slurm): p50 %.0f ms, p90 %.0f ms, max %.0f ms%n",
                    ms[n / 2], ms[(int) (n * 0.9)], ms[n - 1]);
        }
    }
}
