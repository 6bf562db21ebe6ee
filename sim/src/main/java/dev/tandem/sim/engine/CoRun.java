package dev.tandem.sim.engine;

/**
 * One stretch of a job running next to the same partner: the speed (relative to solo) the policies' oracle
 * predicted for it when the stretch began, and the speed the ground truth gave it. {@code predictedSpeed} is NaN
 * when the oracle had no prediction; {@code measured} says whether the truth for this pair was measured or came
 * from the fallback contention model.
 */
public record CoRun(String job, String partner, double start, double end, double predictedSpeed, double trueSpeed, boolean measured) {
    public double seconds() { return end - start; }
}
