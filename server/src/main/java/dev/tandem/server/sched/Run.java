package dev.tandem.server.sched;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.WorkloadSignature;

import java.util.List;

/** What the scheduler loop knows about one live process of a job, beyond the store's row. */
final class Run {
    final long jobId;
    final WorkloadSignature signature;
    final int attempt;
    /** Cluster GPU ids (positions in the device list), not nvidia-smi indices. */
    final List<Integer> gpus;
    final long startedAt;
    final SpeedMeter meter = new SpeedMeter();
    /** When its current set of GPU neighbours formed; observed speeds are measured from here. */
    long placedAt;
    boolean profiling;
    /**
     * Why this run takes no partner for as long as it runs, or null: it ran out of memory next to one before (a run
     * being profiled takes none either, but only until its profile is in: {@link #profiling}).
     */
    String runsAlone;
    /** This run already measured its workload alone (its profile was known only from elsewhere). */
    boolean measuredAlone;
    /** Readings from here on make its profile (its start, or the daemon's restart: older readings are gone). */
    long profileSince;
    /** This job's side of the prediction for its current partner, null when alone. */
    PairPrediction predicted;
    Long partner;
    /** The last job it shared GPUs with in this run (an out-of-memory crash is blamed on that pairing). */
    Long lastPartner;
    double observed = Double.NaN;
    /** Measured since it was placed, per second of the daemon's clock (what the API shows; the policy's clock may differ). */
    double iterationsPerSecond = Double.NaN;
    boolean observationReported;

    Run(long jobId, WorkloadSignature signature, int attempt, List<Integer> gpus, long startedAt) {
        this.jobId = jobId;
        this.signature = signature;
        this.attempt = attempt;
        this.gpus = List.copyOf(gpus);
        this.startedAt = startedAt;
        this.placedAt = startedAt;
        this.profileSince = startedAt;
    }

    void placed(long now, Long partner, PairPrediction predicted) {
        this.placedAt = now;
        this.partner = partner;
        this.predicted = predicted;
        if (partner != null) this.lastPartner = partner;
        this.observed = Double.NaN;
        this.observationReported = false;
    }
}
