package dev.tandem.sim.engine;

/** A run that cannot go on: a policy made an invalid decision, or left work queued on an idle cluster. */
public final class SimulationException extends RuntimeException {
    public SimulationException(String message) {
        super(message);
    }
}
