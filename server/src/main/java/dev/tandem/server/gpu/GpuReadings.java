package dev.tandem.server.gpu;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The readings of a run's GPUs that a profile is made of: nvidia-smi's and, where DCGM is present, dcgmi dmon's.
 * {@code complete} is false while they are still being taken elsewhere (inside a Slurm job step) and will grow.
 * {@code dcgmInUse}: DCGM is sampling where these were taken, so readings of it are to be expected.
 */
public record GpuReadings(List<GpuSample> smi, List<GpuSample> dcgm, boolean complete, boolean dcgmInUse) {
    public GpuReadings {
        smi = List.copyOf(smi);
        dcgm = List.copyOf(dcgm);
    }

    /** Readings from a source that does not say whether DCGM samples (a job step's sampler writes what it has). */
    public GpuReadings(List<GpuSample> smi, List<GpuSample> dcgm, boolean complete) {
        this(smi, dcgm, complete, false);
    }

    /**
     * DCGM is sampling but has given none of its readings for this stretch yet (dcgmi started late, on a loaded host):
     * a profile made now would lack SM activity, SM occupancy and DRAM activity for good.
     */
    public boolean dcgmYetToCome() { return dcgmInUse && dcgm.isEmpty(); }

    public static GpuReadings pending() { return new GpuReadings(List.of(), List.of(), false); }

    /**
     * Parses what the samplers wrote ({@link NvidiaSmiParser#SAMPLE_ARGS} and {@link DcgmDmonParser#ARGS} output) with
     * the monitor's parsers, keeps the GPUs in {@code indexMap} and renumbers them (a node's nvidia-smi index to
     * tandem's GPU id).
     */
    public static GpuReadings parse(List<String> smiLines, List<String> dcgmLines, Map<Integer, Integer> indexMap, long at) {
        List<GpuSample> smi = smiLines.stream().map(l -> NvidiaSmiParser.parseSample(l, at)).flatMap(Optional::stream)
                .flatMap(s -> renumber(s, indexMap).stream()).toList();
        DcgmDmonParser dmon = new DcgmDmonParser();
        List<GpuSample> dcgm = dcgmLines.stream().map(l -> dmon.parse(l, at)).flatMap(Optional::stream)
                .flatMap(s -> renumber(s, indexMap).stream()).toList();
        return new GpuReadings(smi, dcgm, true);
    }

    private static Optional<GpuSample> renumber(GpuSample s, Map<Integer, Integer> indexMap) {
        Integer to = indexMap.get(s.index());
        return to == null ? Optional.empty() : Optional.of(new GpuSample(to, s.at(), s.utilGpu(), s.utilMemory(), s.memoryUsedMiB(),
                s.smActive(), s.smOccupancy(), s.dramActive()));
    }
}
