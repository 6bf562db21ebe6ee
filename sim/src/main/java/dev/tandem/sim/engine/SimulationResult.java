package dev.tandem.sim.engine;

import java.util.List;

/** Everything one policy's run produced. {@code decisions} holds the first decisions with their reasons. */
public record SimulationResult(String policy, Metrics metrics, List<JobRecord> jobs, TimeSeries series, List<String> decisions) {}
