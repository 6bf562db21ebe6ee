package dev.tandem.server.sched;

import dev.tandem.core.runtime.PairReports;
import dev.tandem.server.store.Store;

import java.util.Optional;

/**
 * Measures each run's speed since its neighbours last changed, relative to its solo profile, and reports each
 * co-located pair once per placement ({@link PairReports}, the simulator's rule too) to the compatibility model
 * ({@code ObservationSink.observe}), the store (replayed on restart) and the metrics. The policy sees the measured
 * speeds in its snapshot.
 */
final class Observations {
    /** A run's side of its pair's report (a run being stopped is not measured where it stays). */
    private final PairReports.Side<Run> pairSide = new PairReports.Side<>() {
        @Override public boolean measured(Run r) { return !Double.isNaN(r.observed) && ctx.carrier.stopping(r.jobId) == null; }

        @Override public boolean reported(Run r) { return r.observationReported; }

        @Override public void markReported(Run r) { r.observationReported = true; }
    };

    private final Context ctx;

    Observations(Context ctx) {
        this.ctx = ctx;
    }

    /** @return whether a run's speed became measured (a policy acting on running jobs sees something new) */
    boolean update(long now) {
        boolean measured = false;
        for (Run run : ctx.runs.all()) {
            run.iterationsPerSecond = run.meter.rateSince(run.placedAt, ctx.cfg.observeMs());
            Optional<Double> solo = ctx.learned.measuredSoloSpeed(run.signature);
            boolean before = !Double.isNaN(run.observed);
            run.observed = solo.isPresent() && !Double.isNaN(run.iterationsPerSecond) ? ctx.time.perPolicySecond(run.iterationsPerSecond) / solo.get() : Double.NaN;
            measured |= !before && !Double.isNaN(run.observed);
        }
        for (Run a : ctx.runs.all()) {
            Run b = a.partner == null ? null : ctx.runs.get(a.partner);
            if (b == null) continue;
            PairReports.report(a, b, pairSide, (x, y) -> {
                if (ctx.cfg.online()) ctx.oracle.observe(x.signature, y.signature, x.gpus.size(), x.observed, y.observed);
                ctx.store.addObservation(new Store.Observation(x.signature, y.signature, x.gpus.size(), x.observed, y.observed), now);
                ctx.metrics.colocation(x.predicted == null ? Double.NaN : x.predicted.speedA(), x.observed);
                ctx.metrics.colocation(y.predicted == null ? Double.NaN : y.predicted.speedA(), y.observed);
            });
        }
        return measured;
    }
}
