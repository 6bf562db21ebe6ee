package dev.tandem.core.model;

/** A GPU model and its usable device memory. */
public record GpuType(String name, long memoryMiB) {
    public GpuType {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("GPU type name is empty");
        if (memoryMiB <= 0) throw new IllegalArgumentException("GPU memory must be positive, got " + memoryMiB + " MiB");
    }
}
