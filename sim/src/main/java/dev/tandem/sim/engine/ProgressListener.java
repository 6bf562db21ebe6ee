package dev.tandem.sim.engine;

/** Told about progress now and then during a run (for progress bars). */
@FunctionalInterface
public interface ProgressListener {
    ProgressListener NONE = (done, total, simTime) -> {};

    void update(int jobsDone, int jobsTotal, double simTime);
}
