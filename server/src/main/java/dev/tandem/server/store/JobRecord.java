package dev.tandem.server.store;

import dev.tandem.core.model.WorkloadSignature;

import java.util.List;
import java.util.Map;

/**
 * A job row. Nullable columns are boxed; times are epoch milliseconds. {@code partners}: the jobs that shared a GPU
 * with it in any run. {@code output}: where each run's output is copied for the owner (null: nowhere), as submitted.
 */
public record JobRecord(long id, String owner, String name, List<String> argv, Map<String, String> env, String workdir,
                        int gpus, long memoryMiB, Long iterations, WorkloadSignature signature, JobState state,
                        int attempts, boolean exclusive, List<Integer> gpuIds, Long pid, Long pidStarted,
                        Integer exitCode, Long progressIter, long attainedGpuMs, Double predictedSpeed,
                        Double observedSpeed, long submittedAt, long queuedAt, Long startedAt, Long finishedAt,
                        long updatedAt, String reason, Long timeLimitMs, JobControls controls, List<Long> partners,
                        Long firstStartedAt, RunLimits limits, String output) {
    public JobRecord {
        if (limits == null) limits = RunLimits.NONE;
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
        gpuIds = List.copyOf(gpuIds);
        partners = List.copyOf(partners);
    }
}
