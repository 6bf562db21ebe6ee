package dev.tandem.server.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of the daemon's histograms of scheduling rounds as /metrics exports it ({@code tandem_scheduling_latency_seconds}, the
 * rounds' wall-clock time, or {@code tandem_scheduling_cpu_seconds}, the scheduler thread's CPU time in them):
 * cumulative counts per upper bound, plus the sum (key {@code -1}) and count (key {@code -2}). Two scrapes give the
 * rounds between them exactly; a percentile is the upper bound of the bucket it falls in.
 */
final class RoundHistogram {
    static final String LATENCY = "tandem_scheduling_latency_seconds", CPU = "tandem_scheduling_cpu_seconds";
    private static final double SUM_KEY = -1, COUNT_KEY = -2;

    private final double rounds, meanMs;
    private final Map<Double, Double> cumulative;

    private RoundHistogram(Map<Double, Double> cumulative, double rounds, double sumSeconds) {
        this.cumulative = cumulative;
        this.rounds = rounds;
        this.meanMs = rounds == 0 ? Double.NaN : sumSeconds / rounds * 1000;
    }

    /** The histogram {@code name} ({@link #LATENCY} or {@link #CPU}) as the daemon at {@code url} exports it now. */
    static Map<Double, Double> scrape(String url, String name) throws Exception {
        Pattern bucketLine = Pattern.compile("^" + name + "_bucket\\{le=\"([^\"]+)\"} ([0-9.eE+-]+)$");
        Pattern sumLine = Pattern.compile("^" + name + "_(sum|count) ([0-9.eE+-]+)$");
        String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        Map<Double, Double> out = new TreeMap<>();
        for (String line : text.split("\n")) {
            Matcher b = bucketLine.matcher(line);
            if (b.matches()) {
                out.put(b.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(b.group(1)), Double.parseDouble(b.group(2)));
                continue;
            }
            Matcher s = sumLine.matcher(line);
            if (s.matches()) out.put(s.group(1).equals("sum") ? SUM_KEY : COUNT_KEY, Double.parseDouble(s.group(2)));
        }
        if (!out.containsKey(COUNT_KEY)) throw new IllegalStateException("no " + name + " in " + url + "/metrics");
        return out;
    }

    /** The rounds between two scrapes. */
    static RoundHistogram between(Map<Double, Double> before, Map<Double, Double> after) {
        Map<Double, Double> diff = new TreeMap<>();
        after.forEach((le, n) -> {
            if (le >= 0) diff.put(le, n - before.getOrDefault(le, 0.0));
        });
        return new RoundHistogram(diff, after.get(COUNT_KEY) - before.getOrDefault(COUNT_KEY, 0.0),
                after.get(SUM_KEY) - before.getOrDefault(SUM_KEY, 0.0));
    }

    /** The upper bound, in ms, of the bucket holding the {@code q} quantile. */
    double quantileMs(double q) {
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) if (e.getValue() >= q * rounds) return e.getKey() * 1000;
        return Double.NaN;
    }

    void print(String name) {
        System.out.printf(Locale.ROOT, "%-38s %6.0f rounds, mean %6.1f ms, p50 <= %6.1f ms, p99 <= %6.1f ms%n",
                name, rounds, meanMs, quantileMs(0.5), quantileMs(0.99));
    }
}
