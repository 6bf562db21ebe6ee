package dev.tandem.core.compat;

/**
 * Predicted speeds of two jobs sharing a GPU, each relative to its solo speed (1.0 = no slowdown).
 * {@code uncertainty} is one standard deviation of the per-job speed error; NaN speeds mean "no basis to predict".
 */
public record PairPrediction(double speedA, double speedB, double uncertainty, String basis) {
    public static PairPrediction unknown(String why) {
        return new PairPrediction(Double.NaN, Double.NaN, Double.NaN, why);
    }

    public boolean known() { return !Double.isNaN(speedA) && !Double.isNaN(speedB); }

    /** Combined normalised throughput of the pair (2.0 = both at solo speed). */
    public double combined() { return speedA + speedB; }

    /** The same prediction seen from the other job's side. */
    public PairPrediction swapped() { return new PairPrediction(speedB, speedA, uncertainty, basis); }
}
