package dev.tandem.server.sched;

import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.gpu.GpuSample;

import java.util.List;
import java.util.Map;

/**
 * What the scheduler loop publishes after each round for the API: which jobs are on which GPU, and per job the
 * things the store does not keep (live speeds, partners, why a queued job waits). Immutable; replaced whole.
 */
public record LiveState(long at, List<GpuLive> gpus, Map<Long, JobLive> jobs, int queueLength) {
    public static final LiveState EMPTY = new LiveState(0, List.of(), Map.of(), 0);

    public record GpuLive(int clusterId, GpuDevice device, List<Long> jobs, GpuSample latest) {}

    /**
     * @param predictedSpeed this job's predicted speed relative to solo next to its partner
     * @param observedSpeed  its measured speed relative to solo since its neighbours last changed
     * @param explanation    for a queued job, why it waits
     */
    public record JobLive(long jobId, List<Long> partners, Double predictedSpeed, Double predictedCombined, String predictionBasis,
                          Double observedSpeed, Double iterationsPerSecond, Long progressIter, String explanation, Integer queuePosition) {}

    public JobLive job(long id) { return jobs.get(id); }
}
