package dev.tandem.server.sched;

import java.util.ArrayList;
import java.util.List;

/**
 * A run's progress points ({@code tandem:progress iter=N} with the time the daemon read them) and the speed
 * they give over a window. Only the first and the last point of the window matter, so it keeps few points.
 */
final class SpeedMeter {
    private record Point(long at, long iter) {}

    private static final int MAX_POINTS = 4096;
    private final List<Point> points = new ArrayList<>();

    void add(long at, long iter) {
        if (!points.isEmpty() && iter < points.getLast().iter()) points.clear(); // the job restarted its count
        points.add(new Point(at, iter));
        if (points.size() > MAX_POINTS) points.subList(1, points.size() / 2).clear(); // keep the first and the recent half
    }

    /** Iterations per second between the first point at or after {@code since} and the last one; NaN if they span less than {@code minMs}. */
    double rateSince(long since, long minMs) {
        Point first = null;
        for (Point p : points) {
            if (p.at() >= since) {
                first = p;
                break;
            }
        }
        if (first == null) return Double.NaN;
        Point last = points.getLast();
        long dt = last.at() - first.at();
        if (dt < Math.max(1, minMs)) return Double.NaN;
        return (last.iter() - first.iter()) * 1000.0 / dt;
    }

    /** The last reported iteration, or -1 when none was reported ({@link #position} gives 0 then, and may be negative). */
    long lastIteration() { return points.isEmpty() ? -1 : points.getLast().iter(); }

    /**
     * Where the run is in its job's work, as last reported (0 before any report): below 0 for a simulated run that repeats
     * more of a resume's overhead than its job had done, which counts as work still to do.
     */
    long position() { return points.isEmpty() ? 0 : points.getLast().iter(); }
}
