package dev.tandem.core.model;

import java.util.List;

/** A server with GPUs, CPU cores and host memory. */
public record Node(String name, List<Gpu> gpus, int cpus, long hostMemoryMiB) {
    public Node {
        gpus = List.copyOf(gpus);
    }
}
