package dev.tandem.bench;

import dev.tandem.sim.engine.EventQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The simulator's event queue under its real access pattern (keep {@code pending} events queued, pop the
 * earliest, schedule a later one), against two baselines in the same run: a time-sorted list with binary
 * insertion, as simple simulators keep, and the queue it replaced (a {@link PriorityQueue} of event records behind a
 * comparator, where the heap now keeps times in primitive arrays).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EventQueueBenchmark {
    @Param({"1000", "100000"})
    public int pending;

    private double[] deltas;

    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(1);
        deltas = new double[pending * 2];
        for (int i = 0; i < deltas.length; i++) deltas[i] = r.nextDouble() * 10_000;
    }

    @Benchmark
    public double heap() {
        EventQueue<Object> q = new EventQueue<>();
        for (int i = 0; i < pending; i++) q.push(deltas[i], 0, null, 0);
        double last = 0;
        for (int i = 0; i < pending; i++) {
            last = q.poll().time();
            q.push(last + deltas[pending + i], 0, null, 0);
        }
        return last;
    }

    @Benchmark
    public double sortedListBaseline() {
        List<Double> q = new ArrayList<>();
        for (int i = 0; i < pending; i++) insert(q, deltas[i]);
        double last = 0;
        for (int i = 0; i < pending; i++) {
            last = q.remove(0);
            insert(q, last + deltas[pending + i]);
        }
        return last;
    }

    private record Event(double time, long seq, int type, Object payload, long token) {}

    @Benchmark
    public double priorityQueueOfRecordsBaseline() {
        PriorityQueue<Event> q = new PriorityQueue<>((a, b) -> {
            int byTime = Double.compare(a.time(), b.time());
            return byTime != 0 ? byTime : Long.compare(a.seq(), b.seq());
        });
        long seq = 0;
        for (int i = 0; i < pending; i++) q.add(new Event(deltas[i], seq++, 0, null, 0));
        double last = 0;
        for (int i = 0; i < pending; i++) {
            last = q.poll().time();
            q.add(new Event(last + deltas[pending + i], seq++, 0, null, 0));
        }
        return last;
    }

    private static void insert(List<Double> q, double t) {
        int at = Collections.binarySearch(q, t);
        q.add(at < 0 ? -at - 1 : at, t);
    }
}
