package dev.tandem.server;

import dev.tandem.core.policies.Objective;
import dev.tandem.core.policies.TandemPolicy;
import picocli.CommandLine.Option;

/**
 * The scheduling rules' options, one class for every world: {@code tandem simulate} and {@code tandem sweep} (through
 * the CLI's scenario options) and {@code tandem serve} take the same oracle, memory margin, tandem tunables and objective,
 * with the same defaults, so that what a simulation evaluated is what the daemon runs.
 */
public final class PolicyOptions {
    @Option(names = "--model", defaultValue = "auto", description = "Policies' compatibility oracle: auto, knn, util-sum, measured. Default: ${DEFAULT-VALUE}.")
    String model;

    @Option(names = "--memory-margin", defaultValue = "512", paramLabel = "MIB", description = "MiB budgeted per co-located job beyond its profiled peak. Default: ${DEFAULT-VALUE}.")
    long memoryMargin;

    @Option(names = "--tandem-min-speed", defaultValue = "0.6", description = "tandem: no job predicted below this fraction of its solo speed. Default: ${DEFAULT-VALUE}.")
    double minSpeed;

    @Option(names = "--tandem-min-gain", defaultValue = "0.1", description = "tandem: pair only if predicted combined speed >= 1 + this. Default: ${DEFAULT-VALUE}.")
    double minGain;

    @Option(names = "--tandem-caution", defaultValue = "1.0", description = "tandem: standard deviations of prediction uncertainty subtracted before judging. Default: ${DEFAULT-VALUE}.")
    double caution;

    @Option(names = "--tandem-window", defaultValue = "128", description = "tandem: queued jobs per gang size considered for pairing per round. Default: ${DEFAULT-VALUE}.")
    int window;

    @Option(names = "--tandem-starvation", defaultValue = "7d", converter = DurationConverter.Seconds.class, description = "tandem: a job that has waited this long (from 10 minutes before, at most half of it before) is served first and, with the balanced and jct objectives, suspends running jobs if no GPUs are free. Default: ${DEFAULT-VALUE}.")
    double starvation;

    @Option(names = "--tandem-urgency", defaultValue = "0.25",
            description = "tandem: weight of a waiting job's length when pairing (long jobs first: shorter makespan, longer mean JCT; 0: queue order). Default: ${DEFAULT-VALUE}.")
    double urgency;

    @Option(names = "--objective", defaultValue = "balanced",
            description = "tandem: what the queue order serves: makespan (submission order, long jobs first among equals), "
                    + "jct (shortest first), balanced (shortest first, each long job started by its latest start under the plan). Default: ${DEFAULT-VALUE}.")
    String objective;

    @Option(names = "--no-online", description = "Do not let the oracle learn from the co-located speeds it measures.")
    boolean noOnline;

    public long memoryMarginMiB() { return memoryMargin; }

    /** Whether the oracle learns from measured co-located speeds. */
    public boolean online() { return !noOnline; }

    /** The compatibility oracle's name (checked where it is built). */
    public String model() { return model; }

    /** tandem's configuration from these options; a bad value fails with the option's name. */
    public TandemPolicy.Config tandem() {
        if (!(minSpeed >= 0 && minSpeed <= 1)) throw new IllegalArgumentException("--tandem-min-speed must be within 0..1, got " + minSpeed);
        if (window < 1) throw new IllegalArgumentException("--tandem-window must be at least 1, got " + window);
        if (!(starvation > 0)) throw new IllegalArgumentException("--tandem-starvation must be positive, got " + starvation + " s");
        if (!(urgency >= 0)) throw new IllegalArgumentException("--tandem-urgency must be at least 0, got " + urgency);
        return new TandemPolicy.Config(minSpeed, minGain, caution, window, starvation, urgency, Objective.parse(objective));
    }
}
