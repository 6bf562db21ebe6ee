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
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Measures tandem serve on loopback (not a test), every figure beside a baseline of the same run:
 * <ol>
 * <li>baseline: {@code GET /jobs/ID} from concurrent clients (authentication, a store read, JSON; no write);</li>
 * <li>submissions from the same clients into an empty queue, then into a queue of {@code queued} waiting jobs;</li>
 * <li>the scheduling rounds while that queue waits (from the daemon's own round histograms: wall-clock time, and the
 * scheduler thread's CPU time in them, which tells the round's own work from its wait for a core);</li>
 * <li>submit-to-start latency on idle GPUs (submission until the job's process is started, the daemon's timestamps).</li>
 * </ol>
 * Needs nvidia-smi on PATH: a real one, or the test double, e.g.
 * {@code PATH=server/src/test/resources/fake/bin:$PATH java -cp cli/target/tandem.jar dev.tandem.server.bench.SubmitBenchmark}.
 * Arguments: {@code [clients] [jobs] [queued] [latency-jobs]}, default 20 2000 10000 50.
 */
public final class SubmitBenchmark {

    private SubmitBenchmark() {}

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int queued = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        int latencyJobs = args.length > 3 ? Integer.parseInt(args[3]) : 50;
        ServerLogging.configure(Level.WARN);
        Path root = Files.createTempDirectory("tandem-bench");
        System.out.printf(Locale.ROOT, "tandem serve benchmark: %d clients, %d jobs per phase, %d queued; %d jobs for latency; state under %s%n",
                clients, jobs, queued, latencyJobs, root);
        throughput(root.resolve("throughput"), clients, jobs, queued);
        latency(root.resolve("latency"), latencyJobs);
    }

    private static ServerConfig config(Path state) {
        return new ServerConfig(state, "127.0.0.1", 0, null, "tandem", Sharing.TIME_SLICING, 50,
                new SchedulerConfig(100, 1000, 1000, 1000, 3, 512), 2000, 64 * 1024, true, ToolPath.fromEnvironment());
    }

    /** Requests per second and latency percentiles of one phase. */
    private record Phase(String name, int requests, double seconds, double[] sortedMs) {
        double perSecond() { return requests / seconds; }

        double p(double q) { return sortedMs[Math.min(sortedMs.length - 1, (int) (sortedMs.length * q))]; }

        void print(Phase baseline) {
            System.out.printf(Locale.ROOT, "%-38s %6d requests in %6.2f s = %6.0f /s (%.2fx the baseline); latency p50 %6.1f ms, p99 %6.1f ms%n",
                    name, requests, seconds, perSecond(), baseline == null ? 1.0 : perSecond() / baseline.perSecond(), p(0.5), p(0.99));
        }
    }

    @FunctionalInterface
    private interface Request {
        void run(int i) throws Exception;
    }

    /** Runs {@code n} requests from {@code clients} threads, each timing its own. */
    private static Phase phase(String name, int clients, int n, Request request) throws Exception {
        double[] ms = new double[n];
        long t0 = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
            List<Future<?>> fs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                fs.add(pool.submit(() -> {
                    for (int i = client; i < n; i += clients) {
                        long s = System.nanoTime();
                        request.run(i);
                        ms[i] = (System.nanoTime() - s) / 1e6;
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Arrays.sort(ms);
        return new Phase(name, n, seconds, ms);
    }

    private static void throughput(Path state, int clients, int jobs, int queued) throws Exception {
        try (TandemServer server = TandemServer.start(config(state))) {
            String token = Files.readString(server.adminTokenFile()).strip();
            String body = "{\"argv\": [\"sleep\", \"3600\"], \"workdir\": \"" + state + "\", \"signature\": {\"model\": \"bench\"}}";
            long first = BenchClient.submit(server.url(), token, body).get("id").asLong();
            // warm-up (JIT, connections), as a long-running daemon is: the same requests from the same clients, not measured
            phase("warm-up", clients, 2 * jobs, i -> BenchClient.get(server.url(), token, "/jobs/" + first));
            phase("warm-up", clients, 50, i -> BenchClient.submit(server.url(), token, body));
            Phase baseline = phase("baseline: GET /jobs/ID", clients, jobs, i -> BenchClient.get(server.url(), token, "/jobs/" + first));
            baseline.print(null);
            phase("submit into an empty queue", clients, jobs, i -> BenchClient.submit(server.url(), token, body)).print(baseline);
            int fill = Math.max(0, queued - jobs - 51);
            if (fill > 0) phase("submit, filling the queue to " + queued, clients, fill, i -> BenchClient.submit(server.url(), token, body)).print(baseline);
            String url = server.url();
            Map<Double, Double> before = RoundHistogram.scrape(url, RoundHistogram.LATENCY), beforeCpu = RoundHistogram.scrape(url, RoundHistogram.CPU);
            Thread.sleep(5000);
            RoundHistogram.between(before, RoundHistogram.scrape(url, RoundHistogram.LATENCY)).print("scheduling rounds, " + queued + " queued, no submissions (5 s)");
            RoundHistogram.between(beforeCpu, RoundHistogram.scrape(url, RoundHistogram.CPU)).print("  their CPU time");
            before = RoundHistogram.scrape(url, RoundHistogram.LATENCY);
            beforeCpu = RoundHistogram.scrape(url, RoundHistogram.CPU);
            phase("submit with " + queued + " queued", clients, jobs, i -> BenchClient.submit(url, token, body)).print(baseline);
            RoundHistogram.between(before, RoundHistogram.scrape(url, RoundHistogram.LATENCY)).print("scheduling rounds during those submissions");
            // far below the rounds' wall-clock time: the round waited for a core, taken by the clients and the API
            RoundHistogram.between(beforeCpu, RoundHistogram.scrape(url, RoundHistogram.CPU)).print("  their CPU time");
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
