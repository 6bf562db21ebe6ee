package dev.tandem.server.metrics;

import dev.tandem.server.store.Database;
import dev.tandem.server.store.JobState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The daemon's Prometheus metrics, named by Prometheus' conventions (tandem_ prefix, base units, _total, _seconds,
 * _bytes, _ratio). Gauges are set by the scheduler loop after each round; counters and distributions are recorded where
 * things happen. As scraped:
 * <ul>
 * <li>cluster: tandem_queue_length, tandem_jobs{state}, tandem_gpus, tandem_gpus_busy, tandem_gpus_shared,
 * tandem_gpus_unusable (idle but not to be used now: tandem_gpus - busy - unusable are the GPUs idle for tandem);</li>
 * <li>per GPU ({gpu, node, uuid}): tandem_gpu_utilization_ratio, tandem_gpu_memory_used_bytes,
 *     tandem_gpu_memory_total_bytes, tandem_gpu_tenants;</li>
 * <li>per shared GPU ({gpu, node, uuid}), while every job on it has a measured speed: tandem_gpu_colocated_throughput_ratio
 *     (their speeds relative to alone, summed: above 1, sharing gains) and tandem_gpu_colocated_slowest_ratio (the
 *     slowest one's). No series names a job or a user: the endpoint answers without a token, while the API answers
 *     another user's job as a missing one;</li>
 * <li>histograms: tandem_scheduling_latency_seconds (one round), tandem_scheduling_cpu_seconds (the scheduler
 *     thread's CPU time in it), tandem_job_wait_seconds (submission to first run), tandem_job_run_seconds (one run on
 *     its GPUs);</li>
 * <li>co-location: tandem_colocation_speed_predicted, tandem_colocation_speed_observed,
 *     tandem_colocation_prediction_error;</li>
 * <li>declared lengths ({@code --iterations}) against what the jobs that succeeded did:
 *     tandem_length_estimate_samples, tandem_length_estimate_error (root mean square of ln(actual / declared)),
 *     tandem_length_estimate_error_share (its square over the variance of ln(declared)) and
 *     tandem_length_estimate_trusted (1 while policies take declared lengths as given);</li>
 * <li>counters: tandem_jobs_submitted_total, tandem_decisions_total{kind}, tandem_decisions_rejected_total,
 *     tandem_oom_crashes_total, tandem_job_retries_total.</li>
 * </ul>
 * The Grafana dashboard and the alert rules in {@code ops/} use these names; {@code OpsFilesTest} checks that.
 */
public final class ServerMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicLong queueLength = new AtomicLong();
    private final AtomicLong gpus = new AtomicLong();
    private final AtomicLong gpusBusy = new AtomicLong();
    private final AtomicLong gpusUnusable = new AtomicLong();
    private final AtomicLong gpusShared = new AtomicLong();
    private final Map<JobState, AtomicLong> jobsByState = new EnumMap<>(JobState.class);
    private final Timer schedulingLatency;
    private final Timer schedulingCpu;
    private final DistributionSummary predicted;
    private final DistributionSummary observed;
    private final DistributionSummary predictionError;
    private final Counter submitted;
    private final Counter ooms;
    private final Counter retries;
    private final Counter rejectedDecisions;
    private final Timer jobWait;
    private final Timer jobRun;
    private final MultiGauge colocatedThroughput;
    private final MultiGauge colocatedSlowest;
    private final Map<String, Counter> decisions = new ConcurrentHashMap<>();
    private final AtomicLong lengthSamples = new AtomicLong();
    private final AtomicReference<Double> lengthError = new AtomicReference<>(Double.NaN);
    private final AtomicReference<Double> lengthErrorShare = new AtomicReference<>(Double.NaN);
    private final AtomicLong lengthTrusted = new AtomicLong(1);

    public ServerMetrics() {
        Gauge.builder("tandem.queue.length", queueLength, AtomicLong::get).description("jobs waiting for GPUs").register(registry);
        Gauge.builder("tandem.length.estimate.samples", lengthSamples, AtomicLong::get)
                .description("succeeded jobs whose declared length is judged (the most recent ones)").register(registry);
        Gauge.builder("tandem.length.estimate.error", lengthError, AtomicReference::get)
                .description("root mean square of ln(actual / declared iterations) over those jobs").register(registry);
        Gauge.builder("tandem.length.estimate.error.share", lengthErrorShare, AtomicReference::get)
                .description("the squared error over the variance of ln(declared iterations) of recent submissions").register(registry);
        Gauge.builder("tandem.length.estimate.trusted", lengthTrusted, AtomicLong::get)
                .description("1 while policies take declared lengths as given; 0 once the squared error passed a third of their variance").register(registry);
        Gauge.builder("tandem.gpus", gpus, AtomicLong::get).description("GPUs the daemon schedules").register(registry);
        Gauge.builder("tandem.gpus.busy", gpusBusy, AtomicLong::get).description("GPUs running at least one job").register(registry);
        Gauge.builder("tandem.gpus.unusable", gpusUnusable, AtomicLong::get)
                .description("GPUs running no job that may take none now: another daemon's, busy with processes that are not tandem's, "
                        + "on a Slurm node down, drained or with no CPU or memory free, or held by another Slurm job or tandem daemon").register(registry);
        Gauge.builder("tandem.gpus.shared", gpusShared, AtomicLong::get).description("GPUs running two co-located jobs").register(registry);
        for (JobState s : JobState.values()) {
            AtomicLong v = new AtomicLong();
            jobsByState.put(s, v);
            Gauge.builder("tandem.jobs", v, AtomicLong::get).tag("state", s.dbName()).description("jobs by state").register(registry);
        }
        schedulingLatency = Timer.builder("tandem.scheduling.latency").description("one scheduling round that decides: executor events, queue gate, snapshot, policy decision, applying it, the waiting jobs' reasons")
                .publishPercentiles(0.5, 0.99).publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofSeconds(10)).register(registry);
        schedulingCpu = Timer.builder("tandem.scheduling.cpu").description("the scheduler thread's CPU time in one such round: "
                        + "far below its latency, the round waited for a core (the machine is busy), not for its own work")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofSeconds(10)).register(registry);
        jobWait = Timer.builder("tandem.job.wait").description("from a job's submission to the start of its first run")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(100)).maximumExpectedValue(Duration.ofDays(7)).register(registry);
        jobRun = Timer.builder("tandem.job.run").description("one run of a job on its GPUs, recorded when the run ends")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(100)).maximumExpectedValue(Duration.ofDays(7)).register(registry);
        colocatedThroughput = MultiGauge.builder("tandem.gpu.colocated.throughput.ratio")
                .description("measured speeds of the jobs sharing the GPU relative to running alone, summed (above 1: sharing gains)").register(registry);
        colocatedSlowest = MultiGauge.builder("tandem.gpu.colocated.slowest.ratio")
                .description("measured speed of the slowest job sharing the GPU relative to running alone (1 = no slowdown)").register(registry);
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

    /** What was learned of declared lengths, after a job that declared one succeeded. */
    public void lengthEstimates(dev.tandem.core.runtime.LengthEstimates e) {
        lengthSamples.set(e.samples());
        lengthError.set(e.rmsLogError());
        lengthErrorShare.set(e.errorShare());
        lengthTrusted.set(e.trusted() ? 1 : 0);
    }

    /** The store's transactions and the commits that held them (group commit: fewer commits under load). */
    public void store(Database db) {
        FunctionCounter.builder("tandem.store.transactions", db, Database::transactions)
                .description("store transactions run for the API and the scheduler").register(registry);
        FunctionCounter.builder("tandem.store.commits", db, Database::commits)
                .description("database commits; several transactions share one when they are asked for together").register(registry);
    }

    /** The gauges of one GPU, set after each round. */
    public static final class GpuGauges {
        private final Tags tags;
        private final AtomicReference<Double> utilization = new AtomicReference<>(Double.NaN);
        private final AtomicReference<Double> memoryUsed = new AtomicReference<>(Double.NaN);
        private final AtomicLong tenants = new AtomicLong();

        private GpuGauges(Tags tags) { this.tags = tags; }

        /**
         * @param utilizationPercent the latest sample's GPU utilisation (NaN: none yet)
         * @param memoryUsedMiB      the latest sample's memory in use (NaN: none yet)
         */
        public void set(double utilizationPercent, double memoryUsedMiB, int tenantCount) {
            utilization.set(utilizationPercent / 100);
            memoryUsed.set(memoryUsedMiB * MIB);
            tenants.set(tenantCount);
        }
    }

    private static final double MIB = 1024 * 1024;

    /** Registers the gauges of one GPU. */
    public GpuGauges gpu(int index, String node, String uuid, long memoryTotalMiB) {
        Tags tags = Tags.of("gpu", String.valueOf(index), "node", node, "uuid", uuid);
        GpuGauges g = new GpuGauges(tags);
        Gauge.builder("tandem.gpu.utilization.ratio", g.utilization, AtomicReference::get).tags(tags)
                .description("GPU utilisation of the latest sample, 0 to 1").register(registry);
        Gauge.builder("tandem.gpu.memory.used.bytes", g.memoryUsed, AtomicReference::get).tags(tags)
                .description("device memory in use, latest sample").register(registry);
        Gauge.builder("tandem.gpu.memory.total.bytes", () -> memoryTotalMiB * MIB).tags(tags).description("device memory of the GPU").register(registry);
        Gauge.builder("tandem.gpu.tenants", g.tenants, AtomicLong::get).tags(tags).description("jobs running on the GPU").register(registry);
        return g;
    }

    /** The measured speeds of the jobs on each shared GPU, replacing the last round's. */
    public void colocatedSpeeds(List<SharedGpu> shared) {
        List<MultiGauge.Row<?>> throughput = new ArrayList<>(shared.size()), slowest = new ArrayList<>(shared.size());
        for (SharedGpu g : shared) {
            throughput.add(MultiGauge.Row.of(g.gauges().tags, g.throughput()));
            slowest.add(MultiGauge.Row.of(g.gauges().tags, g.slowest()));
        }
        colocatedThroughput.register(throughput, true);
        colocatedSlowest.register(slowest, true);
    }

    /** A GPU whose jobs all have measured speeds (relative to alone): their sum and the least. */
    public record SharedGpu(GpuGauges gauges, double throughput, double slowest) {}

    /** A job's first run started, {@code waitMs} after its submission. */
    public void firstStart(long waitMs) { jobWait.record(Duration.ofMillis(Math.max(0, waitMs))); }

    /** A run ended after {@code ms} on its GPUs. */
    public void runEnded(long ms) { jobRun.record(Duration.ofMillis(Math.max(0, ms))); }

    /** A policy decision the daemon carried out: start_alone, start_profiling, start_paired, preempt or migrate. */
    public void decision(String kind) {
        decisions.computeIfAbsent(kind, k -> Counter.builder("tandem.decisions").tag("kind", k)
                .description("policy decisions carried out, by kind").register(registry)).increment();
    }

    /**
     * @param nanos    the round's wall-clock time
     * @param cpuNanos the scheduler thread's CPU time in it, or negative where the JVM cannot measure it
     */
    public void round(long nanos, long cpuNanos, int queue, int gpuCount, int busy, int shared, int unusable) {
        schedulingLatency.record(Duration.ofNanos(nanos));
        if (cpuNanos >= 0) schedulingCpu.record(Duration.ofNanos(cpuNanos));
        queueLength.set(queue);
        gpus.set(gpuCount);
        gpusBusy.set(busy);
        gpusShared.set(shared);
        gpusUnusable.set(unusable);
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
