package dev.tandem.server.gpu;

/**
 * A process using a GPU, as {@code nvidia-smi --query-compute-apps} lists it.
 *
 * @param usedMiB its device memory, or -1 where nvidia-smi cannot tell (e.g. "[N/A]" inside some containers)
 */
public record ComputeApp(String gpuUuid, long pid, String name, long usedMiB) {
    /** "pid 4242 (python3, 2000 MiB)". */
    public String describe() {
        String base = name.contains("/") ? name.substring(name.lastIndexOf('/') + 1) : name;
        return "pid " + pid + " (" + base + (usedMiB >= 0 ? ", " + usedMiB + " MiB" : "") + ")";
    }
}
