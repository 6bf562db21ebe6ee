package dev.tandem.sim.engine;

/**
 * One stretch of a job on one GPU with the same neighbour (or none): a bar of the per-GPU timeline. {@code lane}
 * is 0 or 1, the job's row within the GPU's (a job keeps its lane while it stays on the GPU, so a pair's bars sit
 * one above the other); {@code partner} is the other job on this GPU, or null when it ran alone.
 */
public record GpuSpan(int gpu, int lane, String job, double start, double end, String partner) {}
