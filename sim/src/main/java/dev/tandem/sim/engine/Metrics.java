package dev.tandem.sim.engine;

/** A run's summary; field names are the JSON output's. */
public record Metrics(double makespan_s, double avg_jct_s, double p50_jct_s, double p99_jct_s, double avg_queue_s,
                      double gpu_busy_fraction, double gpu_shared_fraction, int oom_events, int jobs_completed,
                      int preemptions, int pairings, double fallback_pair_seconds, long events, long policy_calls,
                      double wall_seconds) {}
