package dev.tandem.server.exec;

/** How co-located jobs share a GPU: CUDA time-slicing (nothing to set up) or NVIDIA MPS. */
public enum Sharing {
    TIME_SLICING, MPS;

    public static Sharing parse(String s) {
        return switch (s) {
            case "time-slicing", "timeslicing", "time_slicing" -> TIME_SLICING;
            case "mps" -> MPS;
            default -> throw new IllegalArgumentException("--sharing: expected time-slicing or mps, got '" + s + "'");
        };
    }
}
