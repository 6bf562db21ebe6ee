package dev.tandem.sim.engine;

import java.util.List;

/**
 * Everything one policy's run produced. {@code decisions} holds the first decisions with their reasons (as many
 * as the simulator was asked to keep), {@code decisionsTotal} counts them all; {@code timeline} and
 * {@code coRuns} are empty unless the {@link Recording} asked for them.
 */
public record SimulationResult(String policy, Metrics metrics, List<JobRecord> jobs, TimeSeries series, List<String> decisions, long decisionsTotal,
                               List<GpuSpan> timeline, List<CoRun> coRuns) {}
