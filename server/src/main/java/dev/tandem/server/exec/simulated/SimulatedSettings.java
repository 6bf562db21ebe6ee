package dev.tandem.server.exec.simulated;

/**
 * {@code tandem serve --executor simulated}: the simulated cluster ({@code NODESxGPUS:TYPE-MEM}, as {@code tandem
 * simulate --cluster}) and how many simulated seconds pass per wall-clock second.
 */
public record SimulatedSettings(String cluster, double timeScale) {
    public SimulatedSettings {
        if (!(timeScale > 0) || timeScale > 1e6) throw new IllegalArgumentException("--time-scale must be within (0, 1000000], got " + timeScale);
        dev.tandem.core.model.Cluster.parse(cluster); // the spec's error names what is wrong
    }

    public static SimulatedSettings defaults() { return new SimulatedSettings("1x4:RTX3090-24GB", 60); }
}
