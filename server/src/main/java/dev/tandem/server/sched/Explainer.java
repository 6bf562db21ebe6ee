package dev.tandem.server.sched;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Job;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.core.model.DurationText;
import dev.tandem.core.runtime.OutOfMemoryRule;
import dev.tandem.core.runtime.Reservations;
import dev.tandem.server.store.JobRecord;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Publishes the loop's live view for the API, and says in words why each queued job waits: what it is waiting
 * for, and for a job that could share, the best partner and why that did not happen, as the policy's own check of
 * the pair says it ({@link Policy#pairingRefusal}: the shared conflicts, then its thresholds) on the same snapshot
 * the policy decided on, so the answer cannot contradict the decision.
 */
final class Explainer {
    /** Beyond this queue position a job is only told its position (keeps rounds cheap with huge queues). */
    private static final int EXPLAINED = 200;

    private final Context ctx;
    private final Policy policy;

    Explainer(Context ctx, Policy policy) {
        this.ctx = ctx;
        this.policy = policy;
    }

    /**
     * The live view of this tick: the GPUs and the running jobs as they are now, the waiting jobs as the last
     * decision left them ({@link #waiting}).
     */
    LiveState publish(LiveState.Waiting waiting, long now) {
        List<LiveState.GpuLive> gpus = new ArrayList<>();
        for (int g = 0; g < ctx.devices.size(); g++) {
            List<Long> on = ctx.runs.on(g).stream().map(r -> r.jobId).toList();
            LiveState.Held held = ctx.carrier.holds().on(g).map(h -> new LiveState.Held(Long.parseLong(h.jobId()),
                    Double.isFinite(h.readyAt()) ? ctx.time.millis(h.readyAt()) : null)).orElse(null);
            gpus.add(new LiveState.GpuLive(g, ctx.devices.get(g), on, ctx.monitor.latest(ctx.devices.get(g).index()).orElse(null),
                    ctx.unusable.foreign.on(g), ctx.unusable.why(g), held));
        }
        Map<Long, LiveState.JobLive> running = new HashMap<>();
        for (Run r : ctx.runs.all()) {
            List<Long> partners = ctx.runs.on(r.gpus, r).stream().map(n -> n.jobId).toList();
            PairPrediction p = r.predicted;
            running.put(r.jobId, new LiveState.JobLive(r.jobId, partners, p == null ? null : p.speedA(), p == null ? null : p.combined(),
                    p == null ? null : p.basis(), finite(r.observed), finite(r.iterationsPerSecond),
                    r.meter.lastIteration() >= 0 ? r.meter.lastIteration() : null, null, null));
        }
        return new LiveState(now, List.copyOf(gpus), Map.copyOf(running), waiting);
    }

    /**
     * Why each waiting job waits, after a decision.
     *
     * @param verdict the waiting jobs: those the policy saw in serving order (their queue positions), and why the
     *                others were held back (they come after, in submission order)
     * @param promised jobs the policy started on GPUs still being freed, and those GPUs (they come first)
     */
    LiveState.Waiting waiting(SchedulerSnapshot snapshot, Map<Long, JobRecord> jobs, QueueGate.Verdict verdict, Map<Long, List<Integer>> promised, long now) {
        int busy = ctx.cluster.gpuCount() - ctx.runs.idleTotal(); // with the GPUs busy with someone else's work
        int most = promised.size() + verdict.admitted().size() + verdict.waiting().size();
        long[] ids = new long[most];
        String[] reasons = new String[most];
        int position = 0, idleOnOneNode = mostIdleOnOneNode(false), idleOnOneNodeWithHeld = mostIdleOnOneNode(true);
        for (var p : promised.entrySet()) {
            ids[position] = p.getKey();
            reasons[position++] = "starting on GPU(s) " + ctx.describe(p.getValue()) + " as soon as the runs the scheduler stopped there have exited";
        }
        FewIds placed = FewIds.of(ctx.runs.all().stream().map(r -> r.jobId).toList());
        for (PendingJob p : verdict.admitted()) {
            long id = Long.parseLong(p.id());
            if (placed.contains(id) || (!promised.isEmpty() && promised.containsKey(id))) continue; // started, or its start waits for its GPUs
            JobRecord q = position < EXPLAINED && snapshot != null ? jobs.get(id) : null;
            // beyond the first few, a job is told its position only (JobLive.reason), and nothing is built for it here
            ids[position] = id;
            reasons[position++] = q != null ? explain(q, snapshot, jobs, busy, idleOnOneNode, idleOnOneNodeWithHeld, now) : null;
        }
        for (var held : verdict.waiting().entrySet()) {
            if (placed.contains(held.getKey())) continue;
            ids[position] = held.getKey();
            reasons[position++] = held.getValue();
        }
        return new LiveState.Waiting(java.util.Arrays.copyOf(ids, position), java.util.Arrays.copyOf(reasons, position));
    }

    /** How long a user waits until the policy's time {@code policySeconds}, in the daemon's seconds (what its clock shows). */
    private double daemonSecondsUntil(double policySeconds, long now) {
        return ctx.time.daemonSeconds(policySeconds - ctx.time.seconds(now));
    }

    /**
     * @param idleOnOneNode         the most idle GPUs any one node has that are not held for a waiting gang
     * @param idleOnOneNodeWithHeld the same, counting held ones
     */
    private String explain(JobRecord q, SchedulerSnapshot s, Map<Long, JobRecord> jobs, int busy, int idleOnOneNode, int idleOnOneNodeWithHeld, long now) {
        int total = ctx.devices.size();
        int unusable = ctx.runs.unusableCount();
        String load = busy + " of " + total + " GPU(s) busy" + (unusable == 0 ? "" : ", " + unusable + " of them with work that is not this daemon's");
        Optional<Reservations.Hold> own = ctx.carrier.holds().forJob(Long.toString(q.id()));
        if (own.isPresent()) {
            Reservations.Hold h = own.get();
            return "waits for GPU(s) " + ctx.describe(h.gpus()) + ", held for it by policy " + policy.name() + ": expected free "
                    + DurationText.roughIn(daemonSecondsUntil(h.readyAt(), now)) + "; until then they take only work expected to be done by then (" + load + ")";
        }
        if (idleOnOneNode < q.gpus() && idleOnOneNodeWithHeld >= q.gpus()) {
            Reservations.Hold h = heldIdle(q.gpus());
            return "waits: idle GPU(s) " + ctx.describe(h.gpus()) + " are held for job " + h.jobId() + " (" + h.gpus().size() + " GPUs), expected to start "
                    + DurationText.roughIn(daemonSecondsUntil(h.readyAt(), now)) + "; policy " + policy.name() + " lets only work expected to be done by then use them ("
                    + load + ")";
        }
        if (policy.decidesInRounds() && policy.wakeUpAt() > ctx.time.seconds(now) && policy.wakeUpAt() < Double.POSITIVE_INFINITY) {
            return "waits for the next round of policy " + policy.name() + ", " + DurationText.roughIn(daemonSecondsUntil(policy.wakeUpAt(), now))
                    + ": its allocation holds for a round, and jobs that arrive or GPUs freed inside one wait for its end (" + load + ")";
        }
        if (q.exclusive()) return "waits for " + q.gpus() + " idle GPU(s): " + OutOfMemoryRule.RUNS_ALONE + " (" + load + ")";
        if (ctx.learned.profile(q.signature()).isEmpty()) {
            boolean underway = ctx.runs.all().stream().anyMatch(r -> r.profiling && r.signature.equals(q.signature()));
            return underway ? "waits: a job of the same workload is being profiled; it can share once the profile is in (" + load + ")"
                    : "waits for " + q.gpus() + " idle GPU(s): " + Context.NOT_PROFILED + " (" + load + ")";
        }
        if (idleOnOneNode >= q.gpus()) return "waits behind earlier jobs (policy " + policy.name() + ", " + load + ")";
        if (total - busy >= q.gpus()) {
            return "waits for " + q.gpus() + " idle GPU(s) on one node: at most " + idleOnOneNode + " are idle on any node (" + load + ")";
        }
        Job job = ctx.job(q);
        String best = null;
        boolean bestAccepted = false;
        double bestCombined = Double.NEGATIVE_INFINITY;
        for (Run host : ctx.runs.all()) {
            JobRecord h = jobs.get(host.jobId);
            if (h == null || host.gpus.size() != q.gpus() || !ctx.runs.on(host.gpus, host).isEmpty()) continue;
            Job hj = ctx.job(h);
            // the world's reason first (a job profiled alone takes no partner), then the policy's own check of the pair
            Optional<String> refused = host.profiling ? Optional.of("it is being profiled alone") : policy.pairingRefusal(s, job, hj, host.gpus);
            PairPrediction p = s.predict(job, hj);
            double combined = p.known() ? p.combined() : Double.NEGATIVE_INFINITY;
            String what = refused.orElseGet(() -> {
                long capacity = ctx.capacity(host.gpus);
                long need = ctx.memoryRule.total(s.memoryNeed(job), s.memoryNeed(hj));
                return String.format(Locale.ROOT, "policy %s accepts the pair (predicted %.2fx combined, %.2f/%.2f ±%.2f, %s; memory %.1f of %.1f GB)"
                                + " but did not choose it this round", policy.name(), p.combined(), p.speedA(), p.speedB(), p.uncertainty(), p.basis(),
                        need / 1024.0, capacity / 1024.0);
            });
            // a partner the policy accepts is the better answer, then the higher predicted throughput
            boolean accepted = refused.isEmpty();
            if (best == null || (accepted && !bestAccepted) || (accepted == bestAccepted && combined > bestCombined)) {
                best = "best partner job " + host.jobId + ": " + what;
                bestAccepted = accepted;
                bestCombined = combined;
            }
        }
        return "waits: " + load + (best == null ? "; no job runs alone that it could share with" : "; " + best);
    }

    /** @param withHeld count GPUs held for a waiting gang as idle too */
    private int mostIdleOnOneNode(boolean withHeld) {
        int most = 0;
        for (var node : ctx.cluster.nodes()) {
            int idle = 0;
            for (var gpu : node.gpus()) if (idle(gpu.id()) && (withHeld || ctx.carrier.holds().on(gpu.id()).isEmpty())) idle++;
            most = Math.max(most, idle);
        }
        return most;
    }

    private boolean idle(int gpu) { return ctx.runs.countOn(gpu) == 0 && ctx.runs.usable(gpu); }

    /** A hold on a node where a job of {@code gpus} GPUs would find them idle but for holds (there is one). */
    private Reservations.Hold heldIdle(int gpus) {
        for (var node : ctx.cluster.nodes()) {
            int idle = 0;
            Reservations.Hold hold = null;
            for (var gpu : node.gpus()) {
                if (!idle(gpu.id())) continue;
                idle++;
                Optional<Reservations.Hold> h = ctx.carrier.holds().on(gpu.id());
                if (h.isPresent()) hold = h.get();
            }
            if (idle >= gpus && hold != null) return hold;
        }
        throw new IllegalStateException("no held GPUs idle for " + gpus + " GPU(s)");
    }

    private static Double finite(double v) { return Double.isNaN(v) || Double.isInfinite(v) ? null : v; }
}
