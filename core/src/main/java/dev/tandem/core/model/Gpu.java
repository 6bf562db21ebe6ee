package dev.tandem.core.model;

/** One GPU: {@code id} is its index in the whole cluster, {@code index} its index on the node. */
public record Gpu(int id, String node, int index, GpuType type) {}
