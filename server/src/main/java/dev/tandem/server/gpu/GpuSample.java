package dev.tandem.server.gpu;

/**
 * One reading of one GPU. nvidia-smi fields are percent and MiB, DCGM fields fractions 0..1; NaN where the
 * tool gave none ("[N/A]", "[Not Supported]", or no DCGM).
 */
public record GpuSample(int index, long at, double utilGpu, double utilMemory, double memoryUsedMiB,
                        double smActive, double smOccupancy, double dramActive) {
    public static GpuSample fromSmi(int index, long at, double utilGpu, double utilMemory, double memoryUsedMiB) {
        return new GpuSample(index, at, utilGpu, utilMemory, memoryUsedMiB, Double.NaN, Double.NaN, Double.NaN);
    }

    public static GpuSample fromDcgm(int index, long at, double smActive, double smOccupancy, double dramActive) {
        return new GpuSample(index, at, Double.NaN, Double.NaN, Double.NaN, smActive, smOccupancy, dramActive);
    }
}
