package dev.tandem.server.sched;

import dev.tandem.server.store.Store;

import java.util.Optional;

/**
 * Measures each run's speed since its neighbours last changed, relative to its solo profile, and reports each
 * co-located pair once per placement to the compatibility model ({@code ObservationSink.observe}), the store
 * (replayed on restart) and the metrics. The policy sees the measured speeds in its snapshot.
 */
final class Observations {
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
            if (a.partner == null || a.observationReported || Double.isNaN(a.observed)) continue;
            Run b = ctx.runs.get(a.partner);
            if (b == null || b.observationReported || Double.isNaN(b.observed) || a.stop != Run.Stop.NONE || b.stop != Run.Stop.NONE) continue;
            if (ctx.cfg.online()) ctx.oracle.observe(a.signature, b.signature, a.gpus.size(), a.observed, b.observed);
            ctx.store.addObservation(new Store.Observation(a.signature, b.signature, a.gpus.size(), a.observed, b.observed), now);
            ctx.metrics.colocation(a.predicted == null ? Double.NaN : a.predicted.speedA(), a.observed);
            ctx.metrics.colocation(b.predicted == null ? Double.NaN : b.predicted.speedA(), b.observed);
            a.observationReported = true;
            b.observationReported = true;
        }
        return measured;
    }
}
