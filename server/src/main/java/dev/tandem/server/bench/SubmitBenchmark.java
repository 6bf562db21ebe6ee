package dev.tandem.server.bench;

import com.fasterxml.jackson.databind.JsonNode;
import ch.qos.logback.classic.Level;
import dev.tandem.server.ServerConfig;
import dev.tandem.server.ServerLogging;
import dev.tandem.server.TandemServer;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.sched.SchedulerConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Measures tandem serve on loopback (not a test): submit throughput of concurrent clients into the SQLite store,
 * and submit-to-start latency on idle GPUs (submission until the job's process is started, from the daemon's
 * own timestamps). Needs nvidia-smi on PATH: a real one, or the test double, e.g.
 * {@code PATH=server/src/test/resources/fake/bin:$PATH java -cp cli/target/tandem.jar dev.tandem.server.bench.SubmitBenchmark}.
 * Arguments: {@code [clients] [jobs] [latency-jobs]}, default 20 2000 50.
 */
public final class SubmitBenchmark {

    private SubmitBenchmark() {}

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int latencyJobs = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        ServerLogging.configure(Level.WARN);
        Path root = Files.createTempDirectory("tandem-bench");
        System.out.printf(Locale.ROOT, "tandem serve benchmark: %d clients, %d jobs; %d jobs for latency; state under %s%n", clients, jobs, latencyJobs, root);
        throughput(root.resolve("throughput"), clients, jobs);
        latency(root.resolve("latency"), latencyJobs);
    }

    private static ServerConfig config(Path state) {
        return new ServerConfig(state, "127.0.0.1", 0, null, "tandem", Sharing.TIME_SLICING, 50,
                new SchedulerConfig(100, 1000, 1000, 1000, 3, 512), 2000, 64 * 1024, true, ToolPath.fromEnvironment());
    }

    private static void throughput(Path state, int clients, int jobs) throws Exception {
        try (TandemServer server = TandemServer.start(config(state))) {
            String token = Files.readString(server.adminTokenFile()).strip();
            String body = "{\"argv\": [\"sleep\", \"3600\"], \"workdir\": \"" + state + "\", \"signature\": {\"model\": \"bench\"}}";
            for (int i = 0; i < 50; i++) BenchClient.submit(server.url(), token, body); // warm-up: JIT, connections
            double[] micros = new double[jobs];
            long t0 = System.nanoTime();
            try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
                List<Future<?>> fs = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    int client = c;
                    fs.add(pool.submit(() -> {
                        for (int i = client; i < jobs; i += clients) {
                            long s = System.nanoTime();
                            BenchClient.submit(server.url(), token, body);
                            micros[i] = (System.nanoTime() - s) / 1e3;
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) f.get();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Arrays.sort(micros);
            System.out.printf(Locale.ROOT, "submit throughput: %d jobs from %d clients in %.2f s = %.0f jobs/s; request latency p50 %.1f ms, p99 %.1f ms%n",
                    jobs, clients, seconds, jobs / seconds, micros[jobs / 2] / 1e3, micros[(int) (jobs * 0.99)] / 1e3);
        }
    }

    private static void latency(Path state, int n) throws Exception {
        try (TandemServer server = TandemServer.start(config(state))) {
            String token = Files.readString(server.adminTokenFile()).strip();
            String body = "{\"argv\": [\"true\"], \"workdir\": \"" + state + "\", \"signature\": {\"model\": \"quick\"}}";
            double[] ms = new double[n];
            for (int i = 0; i < n; i++) {
                long id = BenchClient.submit(server.url(), token, body).get("id").asLong();
                JsonNode job;
                do {
                    Thread.sleep(2);
                    job = BenchClient.get(server.url(), token, "/jobs/" + id);
                } while (!job.get("state").asText().matches("succeeded|failed|cancelled"));
                ms[i] = Instant.parse(job.get("started_at").asText()).toEpochMilli() - Instant.parse(job.get("submitted_at").asText()).toEpochMilli();
            }
            Arrays.sort(ms);
            System.out.printf(Locale.ROOT, "submit-to-start latency on idle GPUs (%d jobs, one at a time): p50 %.0f ms, p90 %.0f ms, max %.0f ms%n",
                    n, ms[n / 2], ms[(int) (n * 0.9)], ms[n - 1]);
        }
    }
}
