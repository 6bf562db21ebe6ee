package dev.tandem.core.model;

/**
 * A job's solo behaviour on one GPU, from a profiling run or from history.
 *
 * @param soloSpeed   iterations per second when alone on the GPU
 * @param gpuUtil     nvidia-smi utilization.gpu, percent (NaN when unknown)
 * @param gmemUtil    nvidia-smi utilization.memory (memory-controller busy), percent (NaN when unknown)
 * @param gmemMiB     peak device memory used, MiB (NaN when unknown)
 * @param smActivity  DCGM SM active fraction 0..1 (NaN when not profiled)
 * @param smOccupancy DCGM SM occupancy fraction 0..1 (NaN when not profiled)
 * @param shareLabel  a sharing class 0 (tiny), 1 (medium), 2 (jumbo) if the source gives one, else -1
 */
public record JobProfile(WorkloadSignature signature, double soloSpeed, double gpuUtil, double gmemUtil,
                         double gmemMiB, double smActivity, double smOccupancy, int shareLabel) {

    public JobProfile {
        if (signature == null) throw new IllegalArgumentException("profile has no signature");
        if (!(soloSpeed > 0)) throw new IllegalArgumentException("solo speed must be positive, got " + soloSpeed);
        checkPercent("gpu_util", gpuUtil);
        checkPercent("gmem_util", gmemUtil);
        if (gmemMiB < 0) throw new IllegalArgumentException("gmem must not be negative, got " + gmemMiB);
        checkFraction("sm_activity", smActivity);
        checkFraction("sm_occupancy", smOccupancy);
        if (shareLabel < -1 || shareLabel > 2) throw new IllegalArgumentException("share label must be 0, 1 or 2, got " + shareLabel);
    }

    /** A profile with only the four metrics nvidia-smi gives. */
    public static JobProfile basic(WorkloadSignature sig, double soloSpeed, double gpuUtil, double gmemUtil, double gmemMiB) {
        return new JobProfile(sig, soloSpeed, gpuUtil, gmemUtil, gmemMiB, Double.NaN, Double.NaN, -1);
    }

    /** The same profile at another solo speed (the same workload measured on other hardware, or in another unit of time). */
    public JobProfile withSoloSpeed(double speed) {
        return new JobProfile(signature, speed, gpuUtil, gmemUtil, gmemMiB, smActivity, smOccupancy, shareLabel);
    }

    public boolean hasUtilization() { return !Double.isNaN(gpuUtil) && !Double.isNaN(gmemUtil); }
    public boolean hasMemory() { return !Double.isNaN(gmemMiB); }

    private static void checkPercent(String field, double v) {
        if (!Double.isNaN(v) && (v < 0 || v > 100)) throw new IllegalArgumentException(field + " must be within 0..100 %, got " + v);
    }

    private static void checkFraction(String field, double v) {
        if (!Double.isNaN(v) && (v < 0 || v > 1)) throw new IllegalArgumentException(field + " must be within 0..1, got " + v);
    }
}
