package dev.tandem.server.metrics;

import dev.tandem.server.store.JobState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The daemon's Prometheus metrics. Gauges are set by the scheduler loop after each round; counters and
 * distributions are recorded where things happen. Names as scraped: tandem_queue_length, tandem_jobs{state},
 * tandem_gpus, tandem_gpus_busy, tandem_gpus_shared, tandem_scheduling_latency_seconds,
 * tandem_colocation_speed_predicted, tandem_colocation_speed_observed, tandem_colocation_prediction_error,
 * tandem_jobs_submitted_total, tandem_oom_crashes_total, tandem_job_retries_total, tandem_decisions_rejected_total.
 */
public final class ServerMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicLong queueLength = new AtomicLong();
    private final AtomicLong gpus = new AtomicLong();
    private final AtomicLong gpusBusy = new AtomicLong();
    private final AtomicLong gpusShared = new AtomicLong();
    private final Map<JobState, AtomicLong> jobsByState = new EnumMap<>(JobState.class);
    private final Timer schedulingLatency;
    private final DistributionSummary predicted;
    private final DistributionSummary observed;
    private final DistributionSummary predictionError;
    private final Counter submitted;
    private final Counter ooms;
    private final Counter retries;
    private final Counter rejectedDecisions;

    public ServerMetrics() {
        Gauge.builder("tandem.queue.length", queueLength, AtomicLong::get).description("jobs waiting for GPUs").register(registry);
        Gauge.builder("tandem.gpus", gpus, AtomicLong::get).description("GPUs the daemon schedules").register(registry);
        Gauge.builder("tandem.gpus.busy", gpusBusy, AtomicLong::get).description("GPUs running at least one job").register(registry);
        Gauge.builder("tandem.gpus.shared", gpusShared, AtomicLong::get).description("GPUs running two co-located jobs").register(registry);
        for (JobState s : JobState.values()) {
            AtomicLong v = new AtomicLong();
            jobsByState.put(s, v);
            Gauge.builder("tandem.jobs", v, AtomicLong::get).tag("state", s.dbName()).description("jobs by state").register(registry);
        }
        schedulingLatency = Timer.builder("tandem.scheduling.latency").description("one scheduling round: snapshot, policy decision, applying it")
                .publishPercentiles(0.5, 0.99).minimumExpectedValue(Duration.ofNanos(100_000)).register(registry);
        predicted = DistributionSummary.builder("tandem.colocation.speed.predicted")
                .description("predicted speed relative to solo of co-located jobs, recorded when their speed is measured").register(registry);
        observed = DistributionSummary.builder("tandem.colocation.speed.observed")
                .description("measured speed relative to solo of co-located jobs").register(registry);
        predictionError = DistributionSummary.builder("tandem.colocation.prediction.error")
                .description("absolute difference of predicted and measured co-located speed").register(registry);
        submitted = Counter.builder("tandem.jobs.submitted").description("jobs accepted by the API").register(registry);
        ooms = Counter.builder("tandem.oom.crashes").description("runs that ended with CUDA out of memory").register(registry);
        retries = Counter.builder("tandem.job.retries").description("crashed runs requeued for another attempt").register(registry);
        rejectedDecisions = Counter.builder("tandem.decisions.rejected")
                .description("policy decisions the placement rules refused (the world changed since the snapshot, or a policy bug)").register(registry);
    }

    public void round(long nanos, int queue, int gpuCount, int busy, int shared) {
        schedulingLatency.record(Duration.ofNanos(nanos));
        queueLength.set(queue);
        gpus.set(gpuCount);
        gpusBusy.set(busy);
        gpusShared.set(shared);
    }

    public void jobsByState(Map<JobState, Long> counts) {
        counts.forEach((s, n) -> jobsByState.get(s).set(n));
    }

    public void colocation(double predictedSpeed, double observedSpeed) {
        observed.record(observedSpeed);
        if (!Double.isNaN(predictedSpeed)) {
            predicted.record(predictedSpeed);
            predictionError.record(Math.abs(predictedSpeed - observedSpeed));
        }
    }

    public void submitted() { submitted.increment(); }

    public void oom() { ooms.increment(); }

    public void retry() { retries.increment(); }

    public void rejectedDecision() { rejectedDecisions.increment(); }

    public String scrape() { return registry.scrape(); }
}
