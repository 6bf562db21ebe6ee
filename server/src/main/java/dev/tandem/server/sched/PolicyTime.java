package dev.tandem.server.sched;

/**
 * The clock the policy reasons in: the cluster's seconds. On real GPUs they are the daemon's own (wall or virtual)
 * seconds; on a simulated cluster under {@code serve --time-scale N} the cluster runs N seconds per daemon second, and
 * the policy sees the cluster's seconds, as {@code tandem simulate} shows them to it. Every duration a policy keeps
 * (tandem's 10-minute minimum run and 30-minute re-plan, Gavel's 6-minute rounds, Tiresias' queue thresholds, the
 * starvation bound) then means the same in both worlds, with no constant scaled by hand; and speeds are iterations
 * per cluster second, the ground truth's own numbers.
 *
 * <p>The daemon's store, API and logs stay in its own milliseconds: only what crosses into the policy's snapshot is
 * converted here, and what comes back from the policy (when to wake it, when held GPUs are expected free) is converted
 * back.
 */
record PolicyTime(double clusterSecondsPerSecond) {
    PolicyTime {
        if (!(clusterSecondsPerSecond > 0) || Double.isInfinite(clusterSecondsPerSecond)) {
            throw new IllegalArgumentException("cluster seconds per second must be positive and finite, got " + clusterSecondsPerSecond);
        }
    }

    /** A time of the daemon's clock (ms since the epoch) in the policy's seconds. */
    double seconds(long millis) {
        return millis / 1000.0 * clusterSecondsPerSecond;
    }

    /** A stretch of the daemon's milliseconds in the policy's seconds. */
    double duration(long millis) {
        return seconds(millis);
    }

    /**
     * The first millisecond of the daemon's clock at which the policy's clock has reached {@code seconds}: asking the
     * policy there, it sees a time at or after the one it named (a round's end), never a rounding error before it.
     */
    long millisAtOrAfter(double seconds) {
        if (Double.isNaN(seconds)) return 0; // as a cast of NaN gives: due at once
        if (Double.isInfinite(seconds)) return seconds > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        long ms = (long) Math.ceil(seconds * 1000 / clusterSecondsPerSecond);
        while (seconds(ms) < seconds) ms++;
        return ms;
    }

    /** The daemon's millisecond nearest to the policy's time {@code seconds} (to show it, e.g. when held GPUs are expected free). */
    long millis(double seconds) {
        return Math.round(seconds * 1000 / clusterSecondsPerSecond);
    }

    /** A stretch of the policy's seconds in the daemon's seconds (what a user waits, shown in explanations). */
    double daemonSeconds(double policySeconds) {
        return policySeconds / clusterSecondsPerSecond;
    }

    /** A rate per daemon second (a measured speed) per second of the policy's clock. */
    double perPolicySecond(double perDaemonSecond) {
        return perDaemonSecond / clusterSecondsPerSecond;
    }
}
