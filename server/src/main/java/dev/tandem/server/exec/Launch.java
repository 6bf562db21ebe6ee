package dev.tandem.server.exec;

import dev.tandem.core.model.WorkloadSignature;

import java.util.List;
import java.util.Map;

/**
 * One run (attempt) of a job.
 *
 * @param env          the user's extra environment; the executor adds CUDA_VISIBLE_DEVICES and its own variables
 * @param tenants      how many jobs will share these GPUs once this one runs (1 = alone); MPS splits SMs by it
 * @param memoryMiB    device memory budgeted per GPU (0 = unknown); MPS pins the job to it
 * @param profileMs    how long this run is profiled (0: not a profiling run); an executor whose GPUs the daemon cannot
 *                     sample itself takes the readings inside the run for that long
 * @param runAs        the account whose rights the job gets: its owner's (null: the daemon's own)
 * @param limits       host memory and process limits the run's cgroup enforces (none: {@code RunLimits.NONE})
 * @param signature    the job's workload, and {@code iterations} its length if the user gave one (null: unknown);
 *                     what a simulated executor runs
 */
public record Launch(long jobId, int attempt, List<String> argv, Map<String, String> env, String workdir,
                     List<GpuDevice> gpus, int tenants, long memoryMiB, long profileMs, UnixAccount runAs,
                     WorkloadSignature signature, Long iterations, dev.tandem.server.store.RunLimits limits) {
    public Launch {
        if (limits == null) limits = dev.tandem.server.store.RunLimits.NONE;
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
        gpus = List.copyOf(gpus);
    }
}
