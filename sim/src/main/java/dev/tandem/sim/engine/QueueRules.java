package dev.tandem.sim.engine;

import java.util.Locale;

/**
 * Which waiting jobs the policy sees, in which order. By default the queue as submitted: trace replays and the
 * peers' own simulators order by submission alone. With {@code fairShare} the simulator applies what {@code tandem
 * serve} applies every round ({@link dev.tandem.core.runtime.Admission}): higher priority first, fair share between
 * users (a user with one job waiting is not stuck behind another user's hundred), and a per-user limit on GPUs
 * held at once, so that a multi-user workload is scheduled in both worlds alike.
 *
 * @param maxGpusPerUser GPUs one user's jobs may hold at once (0: no limit); only with fair share
 */
public record QueueRules(boolean fairShare, int maxGpusPerUser) {
    public static final QueueRules SUBMISSION = new QueueRules(false, 0);

    public QueueRules {
        if (maxGpusPerUser < 0) throw new IllegalArgumentException("the GPU limit per user must not be negative, got " + maxGpusPerUser);
        if (maxGpusPerUser > 0 && !fairShare) throw new IllegalArgumentException("a GPU limit per user is part of the daemon's queue rules: it needs fair share");
    }

    /** The daemon's rules, with a GPU limit per user (0: none). */
    public static QueueRules daemon(int maxGpusPerUser) { return new QueueRules(true, maxGpusPerUser); }

    @Override public String toString() {
        if (!fairShare) return "submission";
        return maxGpusPerUser > 0 ? String.format(Locale.ROOT, "fair-share, at most %d GPU(s) per user", maxGpusPerUser) : "fair-share";
    }
}
