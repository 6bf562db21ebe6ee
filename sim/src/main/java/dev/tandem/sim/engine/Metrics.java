package dev.tandem.sim.engine;

/**
 * A run's summary; field names are the JSON output's. {@code unmeasured_shared_fraction} is the share of
 * co-located GPU time on pairs the ground truth did not measure (their speeds come from its fallback model).
 * {@code max_wait_s} is the longest any job waited in the queue at a stretch (from submission or suspension to its
 * next start): what a starvation bound bounds. {@code ftf_p50} and {@code ftf_max} are the median and largest
 * finish-time fairness of the jobs ({@link JobRecord#finishTimeFairness()}; at most 1 means no job did worse than
 * on its own equal share of the cluster). {@code reservations} counts the holds a policy began on GPUs for a waiting
 * gang ({@code Decision.Reserve}; a hold kept over many decisions counts once, one moved to other GPUs again).
 * {@code length_error_share} is how far the lengths jobs declared proved off by the end, as the share of their spread
 * the errors account for ({@code LengthEstimates}; null where no job declared a length), and
 * {@code lengths_distrusted_at_s} when that share first passed a third (tandem then ranks by attained service), null
 * if it never did. {@code cpu_seconds} is the CPU time of the thread that ran the simulation, beside its
 * {@code wall_seconds}: it leaves out the compiler's and the collector's threads and the time the thread waited for a
 * core, which make wall times on a busy machine vary by up to half (NaN where the JVM does not measure it).
 */
public record Metrics(double makespan_s, double avg_jct_s, double p50_jct_s, double p99_jct_s, double avg_queue_s,
                      double gpu_busy_fraction, double gpu_shared_fraction, int oom_events, int jobs_completed,
                      int preemptions, int pairings, double fallback_pair_seconds, long events, long policy_calls,
                      double wall_seconds, double cpu_seconds, double unmeasured_shared_fraction, double max_wait_s, double ftf_p50, double ftf_max,
                      int reservations, Double length_error_share, Double lengths_distrusted_at_s) {}
