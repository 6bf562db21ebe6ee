package dev.tandem.server.exec;

/** A GPU as nvidia-smi reports it: {@code index} is nvidia-smi's (PCI order), which the scheduler also uses. */
public record GpuDevice(int index, String uuid, String name, long memoryMiB) {}
