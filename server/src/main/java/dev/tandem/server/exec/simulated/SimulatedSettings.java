package dev.tandem.server.exec.simulated;

/**
 * {@code tandem serve --executor simulated}: the simulated cluster ({@code NODESxGPUS:TYPE-MEM}, as {@code tandem
 * simulate --cluster}), how many simulated seconds pass per wall-clock second, and the two costs the simulator charges
 * as well, with its defaults: how long a run that does not fit in its GPU's memory takes to crash, and how many
 * seconds of solo work a run resumed from its checkpoint repeats (reloading it and warming up).
 */
public record SimulatedSettings(String cluster, double timeScale, double oomDetectSeconds, double restartOverheadSeconds) {
    /** The simulator's defaults ({@code tandem simulate}'s SimConfig). */
    public static final double OOM_DETECT_SECONDS = 30, RESTART_OVERHEAD_SECONDS = 30;

    public SimulatedSettings {
        if (!(timeScale > 0) || timeScale > 1e6) throw new IllegalArgumentException("--time-scale must be within (0, 1000000], got " + timeScale);
        if (!(oomDetectSeconds >= 0) || !(restartOverheadSeconds >= 0)) throw new IllegalArgumentException("simulated times must not be negative");
        dev.tandem.core.model.Cluster.parse(cluster); // the spec's error names what is wrong
    }

    public SimulatedSettings(String cluster, double timeScale) {
        this(cluster, timeScale, OOM_DETECT_SECONDS, RESTART_OVERHEAD_SECONDS);
    }

    public static SimulatedSettings defaults() { return new SimulatedSettings("1x4:RTX3090-24GB", 60); }
}
