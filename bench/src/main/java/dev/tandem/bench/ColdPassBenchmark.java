package dev.tandem.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.core.compat.Stats;
import dev.tandem.core.policies.PolicyCatalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Each policy's whole run in a JVM of its own, as a user starts it ({@code ./tandem simulate ... --policy P}), against
 * FIFO's in the same pass: the measurement behind issue 16's "within Nx of FIFO" targets and the README's every-policy
 * rows. One cold run per policy and pass is noisy on a small machine (tandem's 100,000-job run took 12.2 to 21.9 s in
 * one day), so it makes several passes, FIFO first and last in each, and prints medians: of each
 * policy's wall and CPU seconds and of its ratios to the mean of its own pass's FIFO runs. CPU seconds are those of the
 * thread that simulated ({@code cpu_seconds}): without the compiler's and collector's threads and the waits for a core.
 * Beside them, what each policy makes the simulator do against FIFO (events, policy calls): a policy that preempts
 * and re-packs makes work that FIFO never has, which bounds how close to FIFO's time it can come.
 *
 * <p>Usage: {@code java -cp bench/target/tandem-bench.jar dev.tandem.bench.ColdPassBenchmark [--passes N]
 * [--tandem PATH] [--policies a,b,...] -- SIMULATE ARGUMENTS} (default: 3 passes, {@code ./tandem}, every policy
 * {@code ./tandem policies} lists; {@code --policy}, {@code --no-bound} and {@code --output-json} are added).
 */
public final class ColdPassBenchmark {
    /** Every built-in policy but FIFO, which each pass runs first and last. */
    private static final List<String> EVERY_POLICY = PolicyCatalog.names().stream().filter(p -> !p.equals("fifo")).toList();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One run's figures, from its {@code --output-json}. */
    record Run(double wall, double cpu, long events, long policyCalls) {}

    public static void main(String[] args) throws Exception {
        try {
            pass(args);
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("ColdPassBenchmark: " + e.getMessage());
            System.exit(2);
        }
    }

    private static void pass(String[] args) throws IOException, InterruptedException {
        int passes = 3;
        String tandem = "./tandem";
        List<String> policies = EVERY_POLICY;
        List<String> simulate = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--passes" -> passes = positive("--passes", value(args, ++i));
                case "--tandem" -> tandem = value(args, ++i);
                case "--policies" -> policies = List.of(value(args, ++i).split(","));
                case "--" -> {
                    simulate.addAll(Arrays.asList(args).subList(i + 1, args.length));
                    i = args.length;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: [--passes N] [--tandem PATH] [--policies a,b] -- SIMULATE ARGS");
            }
        }
        if (simulate.isEmpty()) throw new IllegalArgumentException("give the workload after --, e.g. -- --jobs 100000 --cluster 250x8:RTX3090-24GB");
        Path dir = Files.createTempDirectory("tandem-cold-pass");
        System.out.printf(Locale.ROOT, "cold pass: %s simulate %s --policy P --no-bound, one JVM per run, %d passes (FIFO first and last in each)%n",
                tandem, String.join(" ", simulate), passes);
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        Map<String, List<double[]>> ratios = new LinkedHashMap<>(); // per policy: {wall, cpu} over its pass's FIFO mean
        for (int pass = 1; pass <= passes; pass++) {
            Run fifoBefore = run(tandem, simulate, "fifo", dir);
            Map<String, Run> these = new LinkedHashMap<>();
            for (String p : policies) these.put(p, run(tandem, simulate, p, dir));
            Run fifoAfter = run(tandem, simulate, "fifo", dir);
            double fifoWall = (fifoBefore.wall() + fifoAfter.wall()) / 2, fifoCpu = (fifoBefore.cpu() + fifoAfter.cpu()) / 2;
            runs.computeIfAbsent("fifo", k -> new ArrayList<>()).addAll(List.of(fifoBefore, fifoAfter));
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "pass %d: fifo %.2f / %.2f s", pass, fifoBefore.wall(), fifoAfter.wall()));
            for (var e : these.entrySet()) {
                runs.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
                ratios.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new double[] {e.getValue().wall() / fifoWall, e.getValue().cpu() / fifoCpu});
                line.append(String.format(Locale.ROOT, ", %s %.2f s (%.1fx)", e.getKey(), e.getValue().wall(), e.getValue().wall() / fifoWall));
            }
            System.out.println(line);
        }
        Run fifo = runs.get("fifo").getFirst();
        System.out.printf(Locale.ROOT, "%n%-13s %9s %9s %22s %12s %10s %13s%n", "policy", "wall_s", "cpu_s", "wall_vs_fifo", "cpu_vs_fifo",
                "events_vs", "policy_calls");
        for (var e : runs.entrySet()) {
            List<Run> rs = e.getValue();
            double wall = median(rs.stream().mapToDouble(Run::wall).toArray()), cpu = median(rs.stream().mapToDouble(Run::cpu).toArray());
            List<double[]> r = ratios.getOrDefault(e.getKey(), List.of());
            String wallRatio = r.isEmpty() ? "1.00x" : ratioText(r.stream().mapToDouble(x -> x[0]).toArray());
            String cpuRatio = r.isEmpty() ? "1.00x" : String.format(Locale.ROOT, "%.2fx", median(r.stream().mapToDouble(x -> x[1]).toArray()));
            Run first = rs.getFirst();
            System.out.printf(Locale.ROOT, "%-13s %9.2f %9.2f %22s %12s %9.2fx %13d%n", e.getKey(), wall, cpu, wallRatio, cpuRatio,
                    (double) first.events() / fifo.events(), first.policyCalls());
        }
        System.out.println("(medians over the passes; wall_vs_fifo gives the range in brackets; events_vs: the simulator's events against FIFO's run)");
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 1) return n;
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(option + " takes a whole number of at least 1, not '" + value + "'");
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) throw new IllegalArgumentException(args[i - 1] + " needs a value");
        return args[i];
    }

    /** The median and, in brackets, the smallest and largest of some ratios. */
    private static String ratioText(double[] r) {
        double lo = Arrays.stream(r).min().orElseThrow(), hi = Arrays.stream(r).max().orElseThrow();
        return String.format(Locale.ROOT, "%.2fx (%.1f-%.1f)", median(r), lo, hi);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return Stats.quantileSorted(sorted, 0.5);
    }

    /** Runs one policy in a JVM of its own and reads its figures back. */
    private static Run run(String tandem, List<String> simulate, String policy, Path dir) throws IOException, InterruptedException {
        Path json = dir.resolve(policy + ".json");
        List<String> cmd = new ArrayList<>(List.of(tandem, "simulate"));
        cmd.addAll(simulate);
        cmd.addAll(List.of("--policy", policy, "--no-bound", "--output-json", json.toString()));
        Path log = dir.resolve(policy + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (p.waitFor() != 0) {
            List<String> out = Files.readAllLines(log);
            throw new IllegalStateException(String.join(" ", cmd) + " exited with " + p.exitValue() + ": "
                    + String.join(" / ", out.subList(Math.max(0, out.size() - 3), out.size())));
        }
        JsonNode r = JSON.readTree(json.toFile()).get("results").get(0);
        return new Run(r.get("wall_seconds").asDouble(), r.get("cpu_seconds").asDouble(), r.get("events").asLong(), r.get("policy_calls").asLong());
    }
}
