package dev.tandem.sim.trace;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns trace records into simulator jobs. Each record gets a profile from the {@link ProfileAssigner}; its work
 * is {@code durationS x profile.soloSpeed()} iterations, so that it runs alone for as long as it ran in the
 * trace. For traces that give only steps (Gavel), a gang of n GPUs takes steps / throughput(n) seconds alone, so its
 * work is {@code steps / speedup(n)} in the profile's one-GPU iterations, where speedup(n) = throughput(n) /
 * throughput(1) from the data ({@link ProfileAssigner#gangSpeedup}; 1 when the data has no per-scale throughputs). Memory per GPU is the profile's peak (0 when the profile has none); the user is kept;
 * ids are the trace's, with "-2", "-3", ... appended to repeats so they are unique. Records are processed one
 * at a time in the order given (readers give submission order), so {@code limit} stops early.
 */
public final class TraceJobs {
    /**
     * Which records become jobs: those submitted in [fromS, toS), at most {@code limit} of them (the first in
     * the given order). Submit times are shifted by {@code -fromS}, so the window starts at 0.
     */
    public record Options(long limit, double fromS, double toS) {
        public static final Options ALL = new Options(Long.MAX_VALUE, 0, Double.POSITIVE_INFINITY);

        public Options {
            if (limit < 0) throw new IllegalArgumentException("limit must not be negative, got " + limit);
            if (!(fromS >= 0) || !(toS > fromS)) throw new IllegalArgumentException("time window needs 0 <= from < to, got " + fromS + ".." + toS);
        }

        public static Options first(long limit) { return new Options(limit, 0, Double.POSITIVE_INFINITY); }

        public Options window(double fromS, double toS) { return new Options(limit, fromS, toS); }
    }

    private TraceJobs() {}

    public static List<Job> toJobs(Iterable<TraceRecord> records, ProfileAssigner assigner) {
        return toJobs(records, assigner, Options.ALL);
    }

    /** @throws IllegalArgumentException for a record whose gang size no profile supports (filter such records first) */
    public static List<Job> toJobs(Iterable<TraceRecord> records, ProfileAssigner assigner, Options options) {
        List<Job> jobs = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (TraceRecord r : records) {
            if (jobs.size() >= options.limit()) break;
            if (r.submitTime() < options.fromS() || r.submitTime() >= options.toS()) continue;
            JobProfile p = assigner.assign(r).orElseThrow(() -> new IllegalArgumentException(
                    "job " + r.id() + " needs " + r.gpus() + " GPUs, and no profile supports gangs of " + r.gpus() + "; filter such records out first"));
            double iterations = r.hasDuration() ? r.durationS() * p.soloSpeed() : r.totalSteps() / assigner.gangSpeedup(p, r.gpus());
            long memory = p.hasMemory() ? Math.round(p.gmemMiB()) : 0;
            jobs.add(new Job(unique(r.id(), ids), r.user(), r.submitTime() - options.fromS(), r.gpus(), p.signature(), iterations, memory, 0));
        }
        return jobs;
    }

    private static String unique(String id, Set<String> ids) {
        if (ids.add(id)) return id;
        for (int k = 2; ; k++) {
            String candidate = id + "-" + k;
            if (ids.add(candidate)) return candidate;
        }
    }
}
