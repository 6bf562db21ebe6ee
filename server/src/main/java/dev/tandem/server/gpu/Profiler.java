package dev.tandem.server.gpu;

import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.server.store.ProfileRecord;

import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Turns a job's solo run into a profile: mean GPU and memory-controller utilisation and peak memory.used from
 * nvidia-smi, mean SM activity, SM occupancy and DRAM activity from DCGM where present, over the job's GPUs
 * (a gang's GPUs behave alike), and its solo speed from its progress lines. Where the readings were taken (this
 * machine's {@link GpuMonitor}, or a sampler inside a Slurm job step) does not matter here.
 */
public final class Profiler {
    /** Fewer readings than this (one second at 200 ms) say too little about a job. */
    public static final int MIN_SAMPLES = 5;
    /** Stands for "unknown" where a job prints no progress; JobProfile needs a positive speed. */
    public static final double UNKNOWN_SPEED = 1.0;

    private Profiler() {}

    /**
     * @param gpuCount    how many GPUs the run had (the readings must cover each)
     * @param readings    the run's solo readings, from this machine's monitor or from inside its Slurm job step
     * @param soloSpeed   iterations per second measured in that run, NaN if the job printed no progress
     */
    public static Optional<ProfileRecord> profile(WorkloadSignature sig, long jobId, int gpuCount, GpuReadings readings, String gpuName,
                                                  double soloSpeed, long now) {
        List<GpuSample> smi = readings.smi();
        if (smi.size() < MIN_SAMPLES * gpuCount) return Optional.empty();
        List<GpuSample> dcgm = readings.dcgm();
        double peak = smi.stream().mapToDouble(GpuSample::memoryUsedMiB).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
        boolean measured = soloSpeed > 0;
        JobProfile p = new JobProfile(sig, measured ? soloSpeed : UNKNOWN_SPEED, mean(smi, GpuSample::utilGpu), mean(smi, GpuSample::utilMemory),
                peak, mean(dcgm, GpuSample::smActive), mean(dcgm, GpuSample::smOccupancy), -1);
        return Optional.of(new ProfileRecord(p, measured, mean(dcgm, GpuSample::dramActive), smi.size(), jobId, gpuName, now));
    }

    static double mean(List<GpuSample> samples, ToDoubleFunction<GpuSample> f) {
        return samples.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
    }
}
