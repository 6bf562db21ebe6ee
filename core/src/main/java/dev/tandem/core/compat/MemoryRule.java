package dev.tandem.core.compat;

/**
 * Decides whether jobs fit together in one GPU's memory. Each job on a shared GPU pays for its own CUDA
 * context and allocator slack, which solo profiles do not show, so every job is charged {@code perJobMarginMiB}
 * on top of its profiled peak.
 */
public record MemoryRule(long perJobMarginMiB) {
    public static final MemoryRule DEFAULT = new MemoryRule(512);

    public MemoryRule {
        if (perJobMarginMiB < 0) throw new IllegalArgumentException("memory margin must not be negative");
    }

    public long charged(long needMiB) { return needMiB + perJobMarginMiB; }

    public boolean fits(long capacityMiB, long... needsMiB) {
        return total(needsMiB) <= capacityMiB;
    }

    public long total(long... needsMiB) {
        long sum = 0;
        for (long n : needsMiB) sum += charged(n);
        return sum;
    }
}
