package dev.tandem.server.sched;

import dev.tandem.core.compat.CompatibilityModels;
import dev.tandem.core.policies.TandemPolicy;

/**
 * The scheduler loop's tunables (all times in milliseconds).
 *
 * @param tickMs        how often the loop polls the executor when nothing wakes it
 * @param roundMs       how often the policy is asked even when nothing changed (preemptive and splitting policies)
 * @param profileMs     how long a new workload runs alone in state profiling
 * @param observeMs     how long co-located jobs run before their speeds count as measured
 * @param maxAttempts   runs a job gets before a crash fails it
 * @param memoryMarginMiB the memory rule's per-job margin
 * @param tandem        the tandem policy's tunables and objective (as {@code tandem simulate} takes them)
 * @param model         the compatibility oracle: auto, knn, util-sum or measured (as {@code tandem simulate --model})
 * @param maxGpusPerUser how many GPUs one user's jobs may hold at once unless the user has a limit of its own; 0: no limit
 * @param knownProfiles  solo profiles known before measuring: bundled, none or a profiles file ({@link KnownProfiles})
 * @param online         whether the oracle learns from the co-located speeds it measures (as {@code tandem simulate} without {@code --no-online})
 */
public record SchedulerConfig(long tickMs, long roundMs, long profileMs, long observeMs, int maxAttempts, long memoryMarginMiB,
                              TandemPolicy.Config tandem, String model, int maxGpusPerUser, String knownProfiles, boolean online) {
    /** With tandem's defaults, the automatic oracle, no GPU limit per user and the bundled known profiles (as serve's). */
    public SchedulerConfig(long tickMs, long roundMs, long profileMs, long observeMs, int maxAttempts, long memoryMarginMiB) {
        this(tickMs, roundMs, profileMs, observeMs, maxAttempts, memoryMarginMiB, TandemPolicy.Config.defaults(), "auto", 0, "bundled", true);
    }

    /** The same settings with a default GPU limit per user (0: none). */
    public SchedulerConfig withMaxGpusPerUser(int limit) {
        return new SchedulerConfig(tickMs, roundMs, profileMs, observeMs, maxAttempts, memoryMarginMiB, tandem, model, limit, knownProfiles, online);
    }

    /** The same settings with other known profiles (none: every new workload is profiled alone first). */
    public SchedulerConfig withKnownProfiles(String known) {
        return new SchedulerConfig(tickMs, roundMs, profileMs, observeMs, maxAttempts, memoryMarginMiB, tandem, model, maxGpusPerUser, known, online);
    }

    public SchedulerConfig {
        if (tandem == null) tandem = TandemPolicy.Config.defaults();
        if (knownProfiles == null || knownProfiles.isBlank()) knownProfiles = "bundled";
        model = CompatibilityModels.check(model == null ? "auto" : model);
        if (tickMs < 10) throw new IllegalArgumentException("--tick must be at least 10 ms");
        if (roundMs < tickMs) throw new IllegalArgumentException("--round must be at least --tick");
        if (profileMs < 0 || observeMs < 0) throw new IllegalArgumentException("--profile-time and --observe-time must not be negative");
        if (maxAttempts < 1) throw new IllegalArgumentException("--max-attempts must be at least 1");
        if (memoryMarginMiB < 0) throw new IllegalArgumentException("--memory-margin must not be negative");
        if (maxGpusPerUser < 0) throw new IllegalArgumentException("--max-gpus-per-user must not be negative");
    }
}
