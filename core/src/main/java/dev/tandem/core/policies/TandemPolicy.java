package dev.tandem.core.policies;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadPair;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Pairing;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * tandem's policy: co-location by the compatibility metric.
 *
 * <ol>
 *   <li><b>Split</b> pairs whose observed speeds fall below the slowdown bound or whose observed combined
 *       throughput does not pay for sharing (the newer job is suspended; the observation also corrects the
 *       model, so the pair is not formed again).</li>
 *   <li><b>Anchor</b> queued jobs on idle GPUs in the order of the {@link Objective} ({@link QueueOrder}: starving
 *       jobs first; then balanced/jct shortest first, makespan submission order), so no GPU idles while work
 *       waits. The first urgent (or, balanced/jct, overdue) gang that finds no idle GPUs reserves the GPUs of one
 *       node that drain soonest ({@link Reservation}), and names the hold in a {@link Decision.Reserve} at every
 *       decision it lasts, so that the world can check it and show it.</li>
 *   <li><b>Match</b> the next {@code window} queued jobs of each gang size with running jobs alone on their GPUs by
 *       a maximum-weight bipartite matching. An edge (queued q, host h) is admissible only if it fits in memory
 *       (with the per-job margin), neither job is predicted below {@code minSpeed} of solo, the pair gains at least
 *       {@code minGain} over running one job (both judged on the cautious prediction, {@code speed - k * uncertainty}),
 *       it never crashed before, and, for gangs, both jobs span the same GPUs. Its weight is the pair's reduced
 *       cost in the configuration LP over all unfinished work ({@link WorkPrices}): zero for pairs in the planned
 *       mix, negative for pairs that use up partners the rest of the workload needs; plus q's urgency (the share
 *       of the plan's remaining horizon it needs alone), so that long jobs start early and the batch does not end
 *       with one long job running alone. Without a plan (no profiles, or too little work to price) an edge weighs
 *       its cautious combined throughput net of q's opportunity cost.</li>
 *   <li><b>Spread out</b>: when nothing waits and GPUs are idle, the newer job of each pair moves to an idle GPU.</li>
 * </ol>
 * With the balanced and jct objectives, jobs on the critical path neither host nor join a partner, and between
 * anchoring and matching an overdue short job may suspend much longer ones, and a starving job any job but the one
 * that ends last ({@link ShortestFirstPreemption}, which says why before the matching).
 * Sharing happens only when a queued job would otherwise wait, so at light load tandem behaves like FIFO.
 * With the makespan objective, if a starving job (waited longer than {@code starvationSeconds}) can be neither
 * anchored nor matched, nothing else is paired until it can.
 */
public final class TandemPolicy implements Policy {
    /** Tunables; defaults in {@link #defaults()}. */
    public record Config(double minSpeed, double minGain, double uncertaintyWeight, int window, double starvationSeconds, double urgencyWeight,
                         Objective objective) {
        public Config {
            java.util.Objects.requireNonNull(objective, "objective");
            if (minSpeed < 0 || minSpeed > 1) throw new IllegalArgumentException("minSpeed must be within 0..1");
            if (window < 1) throw new IllegalArgumentException("window must be at least 1");
            if (!(starvationSeconds > 0)) throw new IllegalArgumentException("the starvation bound must be positive");
            if (!(urgencyWeight >= 0)) throw new IllegalArgumentException("urgency weight must be at least 0");
        }

        /**
         * The default urgency weight, 0.25: the LP prices say which pairs to form but not when, and a long job that
         * starts late ends the batch alone. On the bundled Lucid batch workloads (seeds 1-6) 0 leaves 11% to the
         * bound and 0.1-0.5 leave 4-5%; the price is mean completion time, since long jobs go first.
         */
        public static Config defaults() { return new Config(0.6, 0.1, 1.0, 128, 7 * 24 * 3600.0, 0.25, Objective.BALANCED); }

        public Config withObjective(Objective o) { return new Config(minSpeed, minGain, uncertaintyWeight, window, starvationSeconds, urgencyWeight, o); }
    }

    private record Edge(PendingJob queued, Packing.Host host, PairPrediction prediction, double weight, int position) {}

    private static final int OPPORTUNITY_SAMPLE = 64;
    /**
     * Added to every admissible edge so that all are positive: the matching then first maximises the number of
     * GPUs that get a partner, and among those the total cautious throughput net of opportunity cost.
     */
    private static final double EDGE_OFFSET = 2.0;
    private static final double TIE_BREAK = 1e-7;
    /**
     * Edge weights are rounded to this: pairs whose gains differ by less are ties, which the matching breaks by queue
     * position and then by the hosts' order. Without it the last bits of the plan's prices (which move with the solver
     * and the order of a sum) chose between hosts of equal worth: with every price perturbed by one part in 10^12, the
     * Philly replay's mean JCT moved by up to 8% (exact lengths) and 19% (without).
     */
    private static final double WEIGHT_QUANTUM = 1e-9;
    /** A critical job's edge weights are scaled below every other candidate's (weights stay positive). */
    private static final double CRITICAL_WEIGHT_SCALE = 1e-3;
    /** A job moves off a shared GPU onto an idle one only with at least this much solo work left. */
    private static final double MIN_SPREAD_SECONDS = 600;
    /** How far into the queue one round looks (anchoring with backfill and partner candidates). */
    private static final int SCAN_LIMIT = 512;
    /** Largest hosts x candidates problem solved exactly; larger ones are matched greedily by host class. */
    private static final long EXACT_CELLS = 64 * 64;

    /** Weight of the raw cautious throughput beside the LP's reduced cost: breaks ties among planned pairs. */
    private static final double THROUGHPUT_TIE_WEIGHT = 0.01;
    /**
     * A gang that needs this share of the plan's remaining horizon alone gets GPUs reserved (see {@link Reservation})...
     * On the bundled 400-job Philly-mix workload (seeds 1-5) 0.5-0.6 leave 5% to the bound, 0.3 8%, none 12%.
     */
    static final double RESERVE_URGENCY = 0.5;
    /**
     * ...if GPUs for it drain within this share of the horizon. Unbounded, a reservation on long-running work
     * idles GPUs for days: on the Alibaba trace on 16 GPUs mean JCT rose from 248 h to 575 h (with backfilling;
     * 743 h without, commit 63530f3); with this bound it stays at 248 h.
     */
    static final double MAX_DRAIN_SHARE = 0.25;
    /**
     * With the balanced objective, a queued job that needs at least this share of the plan's remaining horizon alone
     * (in GPU-seconds for a gang, see {@link QueueOrder}) has reached its latest start (it could be slowed to half speed
     * by a partner all the way) and goes before shorter jobs. Measured on the demo (seeds 1-4): 0.4 and 0.5 keep the
     * makespan within 1.4-2.4% of the makespan objective's, 0.5 at 1-8% lower mean JCT; 0.6 loses 1.8-2.9%.
     */
    static final double LATEST_START_SHARE = 0.5;
    /**
     * Without a plan (a short queue), the time the cluster needs for the unfinished work at solo speed says nothing of
     * the work still to arrive, so a job is critical only when it outlasts this multiple of it. Measured (objective
     * balanced): on Gavel's ed69ec cut 1.0 and 1.5 leave the 1,301 h job and the p99 JCT as FIFO's, 2 adds 0.8% to
     * the p99, 4 (nearly no rule) 1.6% to the makespan; on the 400-job Poisson 2x8 workload 1.0 costs 7% of
     * makespan (long jobs stop hosting while the queue is short), 1.5-4 none.
     */
    static final double CRITICAL_WORK_FACTOR = 1.5;

    private final Config cfg;
    private final String name;
    private final WorkPrices prices = new WorkPrices(this::sharingRates);
    private final Reservation reservation = new Reservation();
    /** How soon GPUs drain, for the critical-path rule of {@link #match} (begun anew at each matching). */
    private final Reservation.Drains drains = new Reservation.Drains();
    private final QueueOrder queueOrder = new QueueOrder();
    private final ArrivalLoad arrivalLoad = new ArrivalLoad();
    private final ShortestFirstPreemption.GpuSummary preemptionSummary = new ShortestFirstPreemption.GpuSummary();
    /**
     * The critical path the last decision's matching kept hosts off ({@link #criticalAfter}; infinite where it judged
     * none): a rule of the round, not of the pair, that {@link #pairingRefusal} reports so that "why is my job waiting"
     * names it.
     */
    private double lastCriticalAfter = Double.POSITIVE_INFINITY;
    /**
     * The workload pairs (of one gang size) this policy split for their measured speeds ({@link #split}), each in both
     * orders: never paired again. The online model learns the same from those speeds, per workload pair and gang size,
     * and then predicts the pair below the bounds; a model that does not learn ({@code --no-online}) kept predicting it
     * well, and the pair was formed again at the next decision and split again a minute later, hundreds of times (a
     * suspension and a restart each).
     */
    private final java.util.Set<WorkloadPair> splitPairs = new java.util.HashSet<>();
    /** Unfinished solo GPU-seconds per GPU, and when they were summed (see {@link #criticalAfter}). */
    private double workPerGpu = Double.NaN;
    private double workPerGpuAt = Double.NEGATIVE_INFINITY;

    public TandemPolicy() { this(Config.defaults()); }

    public TandemPolicy(Config cfg) { this(cfg, "tandem"); }

    /** @param name what results call it (e.g. {@code tandem:jct} for a variant beside the default) */
    public TandemPolicy(Config cfg, String name) {
        this.cfg = cfg;
        this.name = name;
    }

    @Override public String name() { return name; }

    @Override public boolean actsOnRunningJobs() { return true; }

    /** See {@link #decisionPeriodSeconds}. */
    static final double DECISION_PERIOD_ON_LARGE_CLUSTERS_SECONDS = 60;

    /**
     * On a cluster of more nodes than one look for room to suspend covers ({@link ShortestFirstPreemption#NODES_PER_TRY}),
     * at most one decision per period of {@link #DECISION_PERIOD_ON_LARGE_CLUSTERS_SECONDS} seconds; on smaller ones, one at
     * every event. A large busy cluster has an arrival or an end every few seconds, and each decision weighs the whole
     * queue against every lone job and plans the mix again. A minute, as Slurm's main scheduling loop by default
     * ({@code sched_interval}): against 30 s, makespan and mean JCT moved by at most 0.2% on average over seeds (README,
     * "The policies"), for a fifth to a third less of tandem's time at 100,000 jobs. A job submitted to a cluster whose last
     * decision was in an earlier period is still decided at once.
     */
    @Override public double decisionPeriodSeconds(dev.tandem.core.model.Cluster cluster) {
        return cluster.nodes().size() > ShortestFirstPreemption.NODES_PER_TRY ? DECISION_PERIOD_ON_LARGE_CLUSTERS_SECONDS : 0;
    }

    public Config config() { return cfg; }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        lastCriticalAfter = Double.POSITIVE_INFINITY;
        ClusterView view = new ClusterView(s);
        List<Decision> out = new ArrayList<>();
        split(s, view, out);
        if (s.queue().isEmpty()) {
            spreadOut(s, view, out);
            return out;
        }

        arrivalLoad.observe(s);
        Map<WorkPrices.Group, WorkPrices.Price> price = backlogged(s) ? prices.prices(s) : Map.of();
        // latest starts are measured against when the work ends, which a steady stream of arrivals pushes out
        double latestStartHorizon = arrivalLoad.stretch(s, deadlineHorizon(s, price));
        List<PendingJob> ordered = queueOrder.select(s, cfg.objective(), SCAN_LIMIT, cfg.starvationSeconds(),
                latestStartHorizon, LATEST_START_SHARE);
        List<PendingJob> waiting = new ArrayList<>(ordered.size()); // growing it by copies was 3% of a profile of the Philly replay
        double[] waitingSeconds = new double[ordered.size()]; // each waiting job's remaining solo seconds, by place
        reservation.begin(s, view, ordered);
        for (int i = 0; i < ordered.size(); i++) {
            PendingJob p = ordered.get(i);
            boolean reservedFor = reservation.isFor(p);
            if (reservedFor) reservation.release(view);
            Optional<List<Integer>> idle = view.freeCount() == 0 ? Optional.empty() : view.findIdle(p.job());
            if (idle.isPresent()) {
                if (reservedFor) reservation.clear();
                view.place(p.job(), idle.get());
                out.add(new Decision.Start(p.id(), idle.get(), (starving(s, p) ? "starving, " : "") + "idle GPU(s) " + idle.get()));
                continue;
            }
            double seconds = queueOrder.selectedSeconds(i);
            if (Double.isNaN(seconds)) seconds = s.expectedSoloSeconds(p);
            if (!reservedFor) {
                Optional<List<Integer>> backfilled = reservation.backfill(s, view, p, seconds);
                if (backfilled.isPresent()) {
                    out.add(new Decision.Start(p.id(), backfilled.get(), String.format(Locale.ROOT,
                            "backfilled on GPU(s) %s held for job %s: done before they are all free (in %.0f s)",
                            backfilled.get(), reservation.gangId(), reservation.readyIn(s.now()))));
                    continue;
                }
            }
            waitingSeconds[waiting.size()] = seconds;
            waiting.add(p);
            // the first urgent or overdue gang that cannot start holds back the GPUs that drain soonest
            if (reservedFor || (!reservation.active() && p.job().gpus() > 1)) {
                double maxDrain = reserveWithin(s, p, seconds, price);
                if (maxDrain > 0) reservation.hold(s, view, p, maxDrain);
            }
        }
        if (!waiting.isEmpty()) {
            double criticalAfter = criticalAfter(s, price);
            if (cfg.objective() == Objective.MAKESPAN) {
                match(s, view, waiting, waitingSeconds, price, criticalAfter, out);
            } else {
                // overdue jobs make room before the matching hands out partner slots (see ShortestFirstPreemption)
                int decided = out.size();
                ShortestFirstPreemption.makeRoom(s, view, waiting, waitingSeconds, criticalAfter, workPerGpu(s), cfg.starvationSeconds(), reservation, out, preemptionSummary);
                Waiting left = out.size() == decided ? new Waiting(waiting, waitingSeconds) : Waiting.unplaced(waiting, waitingSeconds, view);
                match(s, view, left.jobs(), left.seconds(), price, criticalAfter, out);
            }
        }
        if (reservation.active()) {
            // its gang may have started this round as a partner (the matching): then the hold is over (the next round's
            // begin would find it gone from the queue and end it; the world must not hear of a hold for a running job)
            boolean started = false;
            for (Decision d : out) started |= d instanceof Decision.Start st && reservation.isFor(st.jobId());
            if (started) reservation.clear();
            else out.add(reservation.decision(s.now()));
        }
        if (waiting.isEmpty()) spreadOut(s, view, out);
        return out;
    }

    /**
     * Nothing waits but GPUs are idle (the end of a batch, or a lull): sharing now only slows jobs down, so
     * the newer job of each pair moves to an idle GPU, if enough of it is left to pay for the move.
     */
    private void spreadOut(SchedulerSnapshot s, ClusterView view, List<Decision> out) {
        if (view.freeCount() == 0) return;
        // pairs are what it moves: with none in the world and none made this round, no running job needs a look
        // (20,000 jobs arriving on 20,000 GPUs: 132 s with the look at each, 53 s without)
        if (s.occupancy().sharedGpus() == 0 && !view.placedBesideAJob()) return;
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (dev.tandem.core.policy.RunningJob r : s.running()) {
            if (view.freeCount() == 0) return;
            List<Integer> gpus = view.gpusOf(r.id());
            if (gpus.isEmpty() || !seen.add(r.id())) continue;
            List<Job> others = view.occupants(gpus.get(0)).stream().filter(j -> !j.id().equals(r.id())).toList();
            if (others.size() != 1 || !seen.add(others.get(0).id())) continue;
            Job partner = others.get(0);
            dev.tandem.core.policy.RunningJob mover = s.occupancy().job(partner.id())
                    .filter(p -> p.startedAt() > r.startedAt() || (p.startedAt() == r.startedAt() && p.job().submittedAfter(r.job())))
                    .orElse(r);
            if (s.expectedSoloSeconds(mover) < MIN_SPREAD_SECONDS) continue;
            Optional<List<Integer>> idle = view.findIdle(mover.job());
            if (idle.isEmpty()) continue;
            view.remove(mover.id());
            view.place(mover.job(), idle.get());
            out.add(new Decision.Migrate(mover.id(), idle.get(), "nothing waits and GPU(s) " + idle.get() + " are idle: runs alone instead of sharing"));
        }
    }

    /**
     * Planning pays only when more jobs wait than the cluster has GPUs: then which partners are used now decides
     * what is left for later. With a short queue every waiting job gets a place soon anyway, and the LP (tens of
     * milliseconds on large clusters) is not worth solving.
     */
    private static boolean backlogged(SchedulerSnapshot s) {
        return s.queue().size() >= s.cluster().gpuCount();
    }

    /**
     * The plan's remaining horizon if the plan covers all unfinished work, else NaN: a plan over the head of a longer
     * queue (see {@link WorkPrices#PLAN_LIMIT}) ends long before the work does, and deadlines measured against it would
     * call most long jobs late (and on the critical path, see {@link #criticalAfter}).
     */
    private double deadlineHorizon(SchedulerSnapshot s, Map<WorkPrices.Group, WorkPrices.Price> price) {
        return price.isEmpty() || queueBeyondPlan(s) ? Double.NaN : prices.horizon(s.now());
    }

    /** More jobs wait than a plan covers ({@link WorkPrices#PLAN_LIMIT}): its horizon says nothing of when the work ends. */
    private static boolean queueBeyondPlan(SchedulerSnapshot s) {
        return s.queue().size() > WorkPrices.PLAN_LIMIT;
    }

    /**
     * The remaining solo time beyond which a job is on the critical path (objectives other than makespan, which keeps
     * today's rule: pair whatever pays): the plan's horizon, or without a plan the time the cluster needs for all
     * unfinished work at solo speed times {@link #CRITICAL_WORK_FACTOR}; unknown (infinite) while the queue is longer
     * than a plan covers. A longer job ends after everything else whatever happens, so a partner's slowdown would add
     * to its completion time and to the makespan one for one.
     *
     * <p>The horizon is pushed back by the work submitted since the plan was made, spread over every GPU as if none of
     * it shared one (a plan is kept for a while, see {@link WorkPrices}). Else the job that set the plan's end still
     * looks as if it ended last once others arrive: on one GPU running one job, a second that would share it at 1.8x
     * waited for the first to finish, and whether it did turned on how the world's clock rounded (the daemon and the
     * simulator parted on it). Only this rule reads the later end: latest starts, urgency and reservations measured
     * against it too raised mean JCT by 7% on the 300-job 4x8 gang workload (seeds 1-6), where this rule alone moved
     * makespan by -1.3% and mean JCT by -0.1% (Alibaba's default trace on 2x8: +0.8% and +4.7%; the other bundled
     * traces and the demo unchanged).
     */
    private double criticalAfter(SchedulerSnapshot s, Map<WorkPrices.Group, WorkPrices.Price> price) {
        if (cfg.objective() == Objective.MAKESPAN || queueBeyondPlan(s)) return Double.POSITIVE_INFINITY;
        if (!price.isEmpty()) {
            double horizon = deadlineHorizon(s, price) + arrivalLoad.workSince(prices.plannedAt()) / s.cluster().gpuCount();
            return horizon > 0 ? horizon : Double.POSITIVE_INFINITY;
        }
        double perGpu = workPerGpu(s);
        return Double.isFinite(perGpu) ? CRITICAL_WORK_FACTOR * perGpu : Double.POSITIVE_INFINITY;
    }

    /** The unfinished work at solo speed over the cluster's GPUs, NaN with the queue beyond the plan (not summed then). */
    private double workPerGpu(SchedulerSnapshot s) {
        if (queueBeyondPlan(s)) return Double.NaN;
        // summing the unfinished work costs a profile look-up per job: like the plan's drift check, once per 300 s
        if (WorkPrices.due(s.now(), workPerGpuAt, WorkPrices.CHECK_SECONDS) || s.now() < workPerGpuAt) {
            double[] gpuSeconds = {0};
            for (PendingJob p : s.queue()) gpuSeconds[0] += s.expectedSoloSeconds(p) * p.job().gpus();
            s.occupancy().readRunning((job, startedAt, remaining, attained, known) ->
                    gpuSeconds[0] += s.expectedSoloSeconds(job, remaining, attained, known) * job.gpus());
            workPerGpu = gpuSeconds[0] / s.cluster().gpuCount();
            workPerGpuAt = s.now();
        }
        return workPerGpu;
    }

    /**
     * How long a waiting gang may hold GPUs that are draining for it, or 0 if it may not reserve. A gang whose length
     * makes it urgent under the plan holds GPUs draining within a share of the horizon. Ordered shortest first, a
     * gang that is short is never urgent, but single-GPU jobs keep taking every GPU that frees up, so a gang that
     * has waited as long as it will run (slowdown 2) holds GPUs draining within the time it has already waited:
     * its wait is then bounded by about twice that, and GPUs never idle long for a short job.
     */
    private double reserveWithin(SchedulerSnapshot s, PendingJob p, double expectedSeconds, Map<WorkPrices.Group, WorkPrices.Price> price) {
        if (!price.isEmpty() && urgency(s, expectedSeconds) >= RESERVE_URGENCY) return MAX_DRAIN_SHARE * prices.horizon(s.now());
        if (cfg.objective() == Objective.MAKESPAN) return 0;
        double waited = s.now() - p.queuedSince();
        return waited >= expectedSeconds ? waited : 0;
    }

    private boolean starving(SchedulerSnapshot s, PendingJob p) {
        return QueueOrder.starving(s, p, cfg.starvationSeconds());
    }

    /** Waiting jobs and each one's remaining solo seconds, by place. */
    private record Waiting(List<PendingJob> jobs, double[] seconds) {
        /** Those of {@code jobs} not placed this round in {@code view}. */
        static Waiting unplaced(List<PendingJob> jobs, double[] seconds, ClusterView view) {
            List<PendingJob> kept = new ArrayList<>(jobs.size());
            double[] keptSeconds = new double[jobs.size()];
            for (int k = 0; k < jobs.size(); k++) {
                if (view.placedThisRound(jobs.get(k).id())) continue;
                keptSeconds[kept.size()] = seconds[k];
                kept.add(jobs.get(k));
            }
            return new Waiting(kept, keptSeconds);
        }
    }

    /**
     * Pairs waiting jobs with running jobs alone on their GPUs: the hosts and the candidates, grouped into classes of
     * interchangeable jobs, the edges between the classes, and a maximum-weight matching of them. Each stage is a method
     * of its own, which also gives the JIT smaller units: as one method (up to 140 kB of machine code) the matching was
     * compiled by C2 ten times in the 100,000-job run, up to 0.6 s each, as the run's phases changed which of its branches
     * were taken.
     *
     * @param criticalAfter a job with more solo time left than this is on the critical path: it outlasts all other
     *                      work, so sharing only delays it (and the end); it neither hosts nor joins a partner
     */
    private void match(SchedulerSnapshot s, ClusterView view, List<PendingJob> waiting, double[] waitingSeconds, Map<WorkPrices.Group, WorkPrices.Price> price,
                       double criticalAfter, List<Decision> out) {
        if (waiting.isEmpty()) return;
        lastCriticalAfter = criticalAfter;
        Hosts hosts = hosts(s, view, waiting, criticalAfter);
        if (hosts.classes().isEmpty()) return;
        Candidates candidates = candidates(s, waiting, waitingSeconds, criticalAfter, hosts);
        List<ClassEdge> edges = edges(s, view, waitingSeconds, price, hosts.classes(), candidates);
        for (Edge e : solve(edges, candidates.queued(), hosts.classes(), candidates.positions())) place(s, view, e, out);
    }

    /**
     * Running jobs alone on their GPUs, grouped into interchangeable classes, and whether there is a lone job of a gang
     * size nobody waiting has (of those, all that matters is whether there is one: see {@link #candidates}).
     */
    private record Hosts(Map<HostClass, List<Packing.Host>> classes, boolean ofUnwaitedSize) {}

    private Hosts hosts(SchedulerSnapshot s, ClusterView view, List<PendingJob> waiting, double criticalAfter) {
        Map<HostClass, List<Packing.Host>> hosts = new LinkedHashMap<>();
        // without a critical path (a queue longer than a plan covers, the makespan objective) no job is on it: then no
        // lone job's view is needed (a third of tandem's time on 20,000 GPUs, where thousands run alone)
        boolean criticalPath = criticalAfter < Double.POSITIVE_INFINITY;
        // a host takes only a partner of its gang size: of the hosts of sizes nobody waiting has, their views and classes
        // are not made (a large cluster filling up runs thousands of lone jobs while one gang waits: 20,000 jobs on 20,000
        // GPUs, 53 s with them, 29 s without)
        WaitedSizes waitedSizes = new WaitedSizes(waiting);
        boolean hostOfUnwaitedSize = false;
        for (Job r : view.soleTenants()) {
            if (s.runsAlone(r) != null) continue;
            boolean waited = waitedSizes.has(r.gpus());
            if (!waited && hostOfUnwaitedSize) continue;
            if (criticalPath) {
                Optional<dev.tandem.core.policy.RunningJob> running = s.occupancy().job(r.id());
                // the critical path is judged by lengths: a job without one is not on it
                if (running.isPresent() && s.knowsLength(running.get()) && s.expectedSoloSeconds(running.get()) > criticalAfter) continue;
            }
            if (!waited) {
                hostOfUnwaitedSize = true;
                continue;
            }
            List<Integer> gpus = view.gpusOf(r.id());
            int g0 = gpus.get(0);
            // a lone job's GPUs hold only its own memory
            HostClass key = new HostClass(r.signature(), r.gpus(), s.memoryRule().charged(s.memoryNeed(r)), view.capacity(g0));
            hosts.computeIfAbsent(key, k -> new ArrayList<>()).add(new Packing.Host(r, gpus));
        }
        return new Hosts(hosts, hostOfUnwaitedSize);
    }

    /**
     * The waiting jobs the matching considers, grouped into interchangeable classes.
     *
     * @param criticalSeconds a critical job's class: the most solo seconds any of its members needs (it joins a host only if that pays)
     * @param positions       each candidate's place in the waiting list
     * @param bySize          the non-critical candidates by gang size, in waiting order (the opportunity cost's sample)
     * @param classIndex      each non-critical candidate's class, numbered from 0 in the order they were met
     * @param classCount      how many such classes
     */
    private record Candidates(Map<QueuedClass, List<PendingJob>> queued, Map<QueuedClass, Double> criticalSeconds,
                              Map<PendingJob, Integer> positions, Map<Integer, List<PendingJob>> bySize, Map<PendingJob, Integer> classIndex,
                              int classCount) {}

    /** The first `window` waiting jobs of each gang size a host has, grouped by workload; critical jobs apart. */
    private Candidates candidates(SchedulerSnapshot s, List<PendingJob> waiting, double[] waitingSeconds, double criticalAfter, Hosts hosts) {
        boolean criticalPath = criticalAfter < Double.POSITIVE_INFINITY;
        // makespan objective: a starving job that could neither start nor pair keeps everyone else from pairing until
        // it runs. The other objectives only serve starving jobs first: in an overloaded cluster the block passes from
        // one starving job to the next and turns the queue into FIFO (Philly trace: mean JCT 136 h with it, 64 h without)
        boolean starvingWaits = cfg.objective() == Objective.MAKESPAN && starving(s, waiting.get(0));
        Map<Integer, Integer> perSize = new HashMap<>();
        for (HostClass c : hosts.classes().keySet()) perSize.putIfAbsent(c.gpus(), 0);
        Map<QueuedClass, List<PendingJob>> queued = new LinkedHashMap<>();
        Map<QueuedClass, Double> criticalSeconds = new HashMap<>();
        Map<PendingJob, Integer> positions = new java.util.IdentityHashMap<>(), classIndex = new java.util.IdentityHashMap<>();
        Map<Integer, List<PendingJob>> bySize = new HashMap<>();
        Map<QueuedClass, Integer> classes = new HashMap<>();
        int criticalCandidates = 0;
        // gang sizes whose window still has room: none left, none can be added (a host size nobody waiting has never fills)
        int position = 0, open = perSize.size() + (hosts.ofUnwaitedSize() ? 1 : 0);
        for (PendingJob q : waiting) {
            if (open == 0 || (starvingWaits && !starving(s, q))) break;
            // classes are judged by their first member: a job that must run alone is no candidate at all
            if (s.runsAlone(q.job()) != null) { position++; continue; }
            if (criticalPath && s.knowsLength(q) && waitingSeconds[position] > criticalAfter) {
                // on the critical path: a candidate apart from the window, in classes of its own (see edges())
                if (perSize.containsKey(q.job().gpus()) && criticalCandidates < cfg.window()) {
                    criticalCandidates++;
                    QueuedClass c = new QueuedClass(q.job().signature(), q.job().gpus(), s.memoryNeed(q.job()), true);
                    queued.computeIfAbsent(c, k -> new ArrayList<>()).add(q);
                    criticalSeconds.merge(c, waitingSeconds[position], Math::max);
                    positions.put(q, position);
                }
                position++;
                continue;
            }
            Integer n = perSize.get(q.job().gpus());
            if (n != null && n < cfg.window()) {
                perSize.put(q.job().gpus(), n + 1);
                if (n + 1 == cfg.window()) open--;
                QueuedClass c = new QueuedClass(q.job().signature(), q.job().gpus(), s.memoryNeed(q.job()), false);
                queued.computeIfAbsent(c, k -> new ArrayList<>()).add(q);
                classIndex.put(q, classes.computeIfAbsent(c, k -> classes.size()));
                bySize.computeIfAbsent(q.job().gpus(), k -> new ArrayList<>()).add(q);
                positions.put(q, position);
            }
            position++;
        }
        return new Candidates(queued, criticalSeconds, positions, bySize, classIndex, classes.size());
    }

    /** One edge per (queued class, host class) that may pair, weighed by its gain: one prediction per class pair. */
    private List<ClassEdge> edges(SchedulerSnapshot s, ClusterView view, double[] waitingSeconds, Map<WorkPrices.Group, WorkPrices.Price> price,
                                  Map<HostClass, List<Packing.Host>> hosts, Candidates candidates) {
        List<ClassEdge> edges = new ArrayList<>();
        drains.begin(s, view); // how soon GPUs free up, worked out once per GPU and gang need when a critical job asks
        // each host class's representative and plan price, looked up once, not once per queued class
        HostClass[] hostClasses = hosts.keySet().toArray(new HostClass[0]);
        Job[] hostJobs = new Job[hostClasses.length];
        WorkPrices.Price[] hostPrices = new WorkPrices.Price[hostClasses.length];
        for (int h = 0; h < hostClasses.length; h++) {
            hostJobs[h] = hosts.get(hostClasses[h]).get(0).job();
            if (!price.isEmpty()) hostPrices[h] = price.getOrDefault(WorkPrices.Group.of(hostJobs[h]), WorkPrices.UNPLANNED);
        }
        for (Map.Entry<QueuedClass, List<PendingJob>> qe : candidates.queued().entrySet()) {
            QueuedClass qc = qe.getKey();
            PendingJob first = qe.getValue().get(0);
            Job qrep = first.job();
            double urgency = price.isEmpty() ? 0 : urgency(s, waitingSeconds[candidates.positions().get(first)]);
            WorkPrices.Price pq = price.isEmpty() ? null : price.getOrDefault(WorkPrices.Group.of(qrep), WorkPrices.UNPLANNED);
            long need = s.memoryRule().charged(qc.needMiB());
            double opp = Double.NaN;
            SchedulerSnapshot.PartnerPredictions withQueued = s.predictionsWith(qrep);
            for (int h = 0; h < hostClasses.length; h++) {
                HostClass hc = hostClasses[h];
                Job hrep = hostJobs[h];
                if (Pairing.conflict(s, qrep, need, hrep, hc.chargedMiB(), hc.capacityMiB()) != null || splitBefore(qrep, hrep)) continue;
                PairPrediction pr = withQueued.predict(hrep);
                if (!admissible(pr)) continue;
                if (qc.critical()) {
                    // a job on the critical path outlasts all other work: a partner's slowdown adds to its end, unless
                    // waiting for GPUs of its own would add more (one GPU, every GPU busy for longer than it slows down)
                    double seconds = candidates.criticalSeconds().get(qc), slowed = seconds / cautious(pr.speedA(), pr);
                    // GPUs of its own drain soon enough when the wait for them adds no more than the slowdown would
                    if (drains.freeWhen(qrep, wait -> !(slowed < wait + seconds))) continue;
                }
                double gain;
                if (pq != null) {
                    WorkPrices.Price ph = hostPrices[h];
                    // the pair's reduced cost against the host running alone: zero for pairs in the planned mix
                    double[] r = WorkPrices.cautiousRates(pr, cfg.uncertaintyWeight());
                    gain = r[0] * pq.work() - (1 - r[1]) * ph.work() - pq.slot() + THROUGHPUT_TIE_WEIGHT * cautious(pr.combined(), pr)
                            + cfg.urgencyWeight() * urgency;
                } else {
                    if (Double.isNaN(opp)) opp = opportunity(s, first, candidates);
                    gain = cautious(pr.combined(), pr) - opp;
                }
                // a critical job takes a host only where no other candidate would: its pair lasts as long as it does
                double weight = tie(EDGE_OFFSET + gain);
                edges.add(new ClassEdge(qc, hc, pr, qc.critical() ? CRITICAL_WEIGHT_SCALE * weight : weight));
            }
        }
        return edges;
    }

    /** A weight rounded to {@link #WEIGHT_QUANTUM}. */
    private static double tie(double weight) {
        return Math.rint(weight / WEIGHT_QUANTUM) * WEIGHT_QUANTUM;
    }

    /** Starts a matched job beside its host, with the prediction that chose the pair as its reason. */
    private static void place(SchedulerSnapshot s, ClusterView view, Edge e, List<Decision> out) {
        PairPrediction pr = e.prediction();
        StringBuilder why = Packing.reason().append("paired ").append(e.queued().id()).append(" with ").append(e.host().job().id()).append(": predicted ");
        Fixed.append(why, pr.combined(), 2).append("x (");
        Fixed.append(why, pr.speedA(), 2).append('/');
        Fixed.append(why, pr.speedB(), 2).append(" ±");
        Fixed.append(why, pr.uncertainty(), 2).append(", ").append(pr.basis()).append("), ");
        String reason = Packing.appendMemoryNote(why, view, e.queued().job(), e.host().gpus(), s).toString();
        view.place(e.queued().job(), e.host().gpus());
        out.add(new Decision.Start(e.queued().id(), e.host().gpus(), reason));
    }

    /**
     * Whether some waiting job has a gang size, found by a walk down the waiting jobs that stops at the first of that
     * size, once per size: asked for every lone job, of a handful of sizes, while thousands may wait.
     */
    private static final class WaitedSizes {
        private static final byte UNKNOWN = 0, YES = 1, NO = 2;
        private final List<PendingJob> waiting;
        private final byte[] small = new byte[65];

        WaitedSizes(List<PendingJob> waiting) { this.waiting = waiting; }

        boolean has(int gpus) {
            if (gpus >= small.length) return walk(gpus);
            if (small[gpus] == UNKNOWN) small[gpus] = walk(gpus) ? YES : NO;
            return small[gpus] == YES;
        }

        private boolean walk(int gpus) {
            for (PendingJob q : waiting) if (q.job().gpus() == gpus) return true;
            return false;
        }
    }

    /** Hosts that are interchangeable for matching: same workload, gang size, memory in use and capacity. */
    private record HostClass(dev.tandem.core.model.WorkloadSignature signature, int gpus, long chargedMiB, long capacityMiB) {}

    /**
     * Queued jobs that are interchangeable for matching (they differ only in queue position); jobs on the critical path
     * form classes of their own.
     */
    private record QueuedClass(dev.tandem.core.model.WorkloadSignature signature, int gpus, long needMiB, boolean critical) {}

    private record ClassEdge(QueuedClass queued, HostClass hosts, PairPrediction prediction, double weight) {}

    /**
     * Maximum-weight matching of queued jobs to hosts: exact (Hungarian) when the expanded problem is small,
     * otherwise greedy over class pairs (heaviest first, each class offering its members in queue order).
     * Among equally good partners the job earlier in the queue wins. Returns the chosen pairs in queue order.
     */
    private static List<Edge> solve(List<ClassEdge> edges, Map<QueuedClass, List<PendingJob>> queued, Map<HostClass, List<Packing.Host>> hosts,
                                    Map<PendingJob, Integer> positions) {
        List<Edge> chosen = new ArrayList<>();
        if (edges.isEmpty()) return chosen;
        java.util.Set<QueuedClass> qcs = new java.util.LinkedHashSet<>();
        java.util.Set<HostClass> hcs = new java.util.LinkedHashSet<>();
        for (ClassEdge e : edges) { qcs.add(e.queued()); hcs.add(e.hosts()); }
        long rows = hcs.stream().mapToLong(c -> hosts.get(c).size()).sum();
        long cols = qcs.stream().mapToLong(c -> queued.get(c).size()).sum();
        if (rows * cols <= EXACT_CELLS) {
            // classes numbered in first-met order, so that each cell finds its class pair's edge by index
            Map<HostClass, Integer> hostIndex = new HashMap<>();
            Map<QueuedClass, Integer> queuedIndex = new HashMap<>();
            for (HostClass c : hcs) hostIndex.put(c, hostIndex.size());
            for (QueuedClass c : qcs) queuedIndex.put(c, queuedIndex.size());
            ClassEdge[][] byPair = new ClassEdge[hcs.size()][qcs.size()];
            for (ClassEdge e : edges) byPair[hostIndex.get(e.hosts())][queuedIndex.get(e.queued())] = e;
            List<Packing.Host> hostRows = new ArrayList<>();
            int[] rowClass = new int[(int) rows];
            for (HostClass c : hcs) for (Packing.Host h : hosts.get(c)) { rowClass[hostRows.size()] = hostIndex.get(c); hostRows.add(h); }
            List<PendingJob> jobCols = new ArrayList<>();
            int[] colClass = new int[(int) cols], colPosition = new int[(int) cols];
            for (QueuedClass c : qcs) {
                for (PendingJob q : queued.get(c)) {
                    colClass[jobCols.size()] = queuedIndex.get(c);
                    colPosition[jobCols.size()] = positions.get(q);
                    jobCols.add(q);
                }
            }
            double[][] w = new double[hostRows.size()][jobCols.size()];
            for (int i = 0; i < w.length; i++) {
                ClassEdge[] row = byPair[rowClass[i]];
                for (int j = 0; j < jobCols.size(); j++) {
                    ClassEdge e = row[colClass[j]];
                    if (e != null) w[i][j] = e.weight() - colPosition[j] * TIE_BREAK;
                }
            }
            int[] match = Matching.maxWeight(w);
            for (int i = 0; i < match.length; i++) {
                if (match[i] < 0) continue;
                ClassEdge e = byPair[rowClass[i]][colClass[match[i]]];
                chosen.add(new Edge(jobCols.get(match[i]), hostRows.get(i), e.prediction(), w[i][match[i]], colPosition[match[i]]));
            }
        } else {
            List<ClassEdge> sorted = new ArrayList<>(edges);
            sorted.sort(Comparator.comparingDouble(ClassEdge::weight).reversed()
                    .thenComparingInt(e -> positions.get(queued.get(e.queued()).get(0))));
            Map<QueuedClass, Integer> qTaken = new HashMap<>();
            Map<HostClass, Integer> hTaken = new HashMap<>();
            for (ClassEdge e : sorted) {
                List<PendingJob> qs = queued.get(e.queued());
                List<Packing.Host> hs = hosts.get(e.hosts());
                int qi = qTaken.getOrDefault(e.queued(), 0), hi = hTaken.getOrDefault(e.hosts(), 0);
                while (qi < qs.size() && hi < hs.size()) {
                    PendingJob q = qs.get(qi++);
                    chosen.add(new Edge(q, hs.get(hi++), e.prediction(), e.weight(), positions.get(q)));
                }
                qTaken.put(e.queued(), qi);
                hTaken.put(e.hosts(), hi);
            }
        }
        chosen.sort(Comparator.comparingInt(Edge::position));
        return chosen;
    }

    /**
     * What a queued job is worth as a partner elsewhere: its mean cautious combined throughput with the other
     * jobs it waits with (1.0 where they cannot share). Jobs that pair well with anything (light jobs) are
     * scarce partners for jobs that pair well with little (heavy ones); weighing an edge by its gain over this
     * opportunity cost sends light jobs to heavy hosts instead of using them all up early on light hosts,
     * which would leave the heavy jobs to run alone at the end.
     */
    private double opportunity(SchedulerSnapshot s, PendingJob q, Candidates candidates) {
        List<PendingJob> window = candidates.bySize().getOrDefault(q.job().gpus(), List.of());
        double sum = 0;
        int n = 0;
        SchedulerSnapshot.PartnerPredictions withQ = s.predictionsWith(q.job());
        // a window job's worth beside q is its class's (workload, gang size and memory decide it): judged once per class,
        // added per job in window order as before (the sample is up to 64 jobs, mostly of a handful of workloads)
        double[] worth = new double[candidates.classCount()];
        boolean[] judged = new boolean[worth.length];
        for (PendingJob o : window) {
            if (o == q || o.job().gpus() != q.job().gpus()) continue;
            int c = candidates.classIndex().get(o);
            if (!judged[c]) {
                PairPrediction pr = shareableOrNull(s, q.job(), o.job(), withQ); // no Optional or boxed double: asked per queued pair
                worth[c] = pr == null ? 1.0 : cautious(pr.combined(), pr);
                judged[c] = true;
            }
            sum += worth[c];
            if (++n == OPPORTUNITY_SAMPLE) break;
        }
        return n == 0 ? 1.0 : sum / n;
    }

    private double cautious(double value, PairPrediction pr) {
        double u = Double.isNaN(pr.uncertainty()) ? 0 : pr.uncertainty();
        return value - cfg.uncertaintyWeight() * u;
    }

    /**
     * The share of the plan's remaining horizon a queued job needs alone (1 = it must start now). {@code expectedSeconds}:
     * its expected solo seconds, as the round worked them out once per waiting job; for a job of unknown length, by the
     * service it has had, as the queue order judges its latest start (see {@code QueueOrder.urgent}).
     */
    private double urgency(SchedulerSnapshot s, double expectedSeconds) {
        double h = prices.horizon(s.now());
        if (!(h > 0)) return 1;
        return Math.min(1, expectedSeconds / h);
    }

    /** The cautious speeds at which this policy would let two jobs share GPUs, or null where it would not. */
    private double[] sharingRates(SchedulerSnapshot s, Job[] pair) {
        PairPrediction pr = shareableOrNull(s, pair[0], pair[1]);
        return pr == null ? null : WorkPrices.cautiousRates(pr, cfg.uncertaintyWeight());
    }

    /**
     * The prediction for two jobs that could share the cluster's largest GPUs (memory, no past crash, slowdown
     * bound and gain), or null; judged without a particular host, for planning and opportunity costs.
     */
    private PairPrediction shareableOrNull(SchedulerSnapshot s, Job a, Job b) {
        return shareableOrNull(s, a, b, s.predictionsWith(a));
    }

    /** {@link #shareableOrNull(SchedulerSnapshot, Job, Job)} with a's predictions at hand. */
    private PairPrediction shareableOrNull(SchedulerSnapshot s, Job a, Job b, SchedulerSnapshot.PartnerPredictions withA) {
        if (s.memoryRule().total(s.memoryNeed(a), s.memoryNeed(b)) > s.cluster().maxGpuMemoryMiB() || s.crashedTogether(a, b) || splitBefore(a, b)) return null;
        PairPrediction pr = withA.predict(b);
        return admissible(pr) ? pr : null;
    }

    /** The slowdown bound and the minimum gain, both judged on the cautious (uncertainty-discounted) prediction. */
    boolean admissible(PairPrediction pr) {
        return inadmissible(pr) == null;
    }

    /** Which of tandem's rules a prediction breaks, or null where the pair may share. */
    private enum Inadmissible { UNKNOWN, SLOWDOWN, GAIN }

    private Inadmissible inadmissible(PairPrediction pr) {
        if (!pr.known()) return Inadmissible.UNKNOWN;
        if (cautious(Math.min(pr.speedA(), pr.speedB()), pr) < cfg.minSpeed()) return Inadmissible.SLOWDOWN;
        if (cautious(pr.combined(), pr) < 1 + cfg.minGain()) return Inadmissible.GAIN;
        return null;
    }

    /** The pair's conflicts and thresholds, then whether the last decision kept the host from hosting (the critical path). */
    @Override public Optional<String> pairingRefusal(SchedulerSnapshot s, Job guest, Job host, List<Integer> hostGpus) {
        Optional<String> conflict = Pairing.refusal(s, guest, host, hostGpus);
        if (conflict.isPresent()) return conflict;
        if (splitBefore(guest, host)) {
            return Optional.of("a pair of " + guest.signature().label() + " and " + host.signature().label()
                    + " was split before: its measured speeds broke the slowdown bound or did not pay for sharing");
        }
        PairPrediction pr = s.predict(guest, host);
        Inadmissible why = inadmissible(pr);
        if (why == null) {
            // as the matching judged hosts: by lengths, against the last decision's critical path
            Optional<dev.tandem.core.policy.RunningJob> r = s.occupancy().job(host.id());
            double left = r.isPresent() && s.knowsLength(r.get()) ? s.expectedSoloSeconds(r.get()) : Double.NaN;
            return !(left > lastCriticalAfter) ? Optional.empty() : Optional.of(String.format(Locale.ROOT, "job %s is on the critical path: %.0f s"
                    + " of its work are left, beyond the %.0f s by which the rest of the work should end, so a partner's slowdown would delay"
                    + " the end", host.id(), left, lastCriticalAfter));
        }
        return Optional.of(switch (why) {
            case UNKNOWN -> "no prediction (" + pr.basis() + ")";
            case SLOWDOWN -> String.format(Locale.ROOT, "predicted speeds %.2f/%.2f ±%.2f (%s): the slower, less %.1f x the uncertainty, is below"
                    + " the slowdown bound %.2f", pr.speedA(), pr.speedB(), pr.uncertainty(), pr.basis(), cfg.uncertaintyWeight(), cfg.minSpeed());
            case GAIN -> String.format(Locale.ROOT, "predicted %.2fx combined ±%.2f (%s): less %.1f x the uncertainty, below the minimum gain %.2fx",
                    pr.combined(), pr.uncertainty(), pr.basis(), cfg.uncertaintyWeight(), 1 + cfg.minGain());
        });
    }

    /** Whether this policy split a pair of these two jobs' workloads and gang size before ({@link #splitPairs}). */
    private boolean splitBefore(Job a, Job b) {
        return !splitPairs.isEmpty() && a.gpus() == b.gpus() && splitPairs.contains(new WorkloadPair(a.signature(), b.signature(), a.gpus()));
    }

    /**
     * Suspends the newer job of any pair whose measured speeds break the bound or do not pay for sharing, and remembers
     * the pair's workloads ({@link #splitPairs}).
     */
    private void split(SchedulerSnapshot s, ClusterView view, List<Decision> out) {
        for (Packing.ObservedPair p : Packing.observedPairs(s)) {
            if (p.worst() >= cfg.minSpeed() && p.combined() >= 1 + cfg.minGain() / 2) continue;
            view.remove(p.newer().id());
            int gpus = p.newer().job().gpus();
            splitPairs.add(new WorkloadPair(p.older().job().signature(), p.newer().job().signature(), gpus));
            splitPairs.add(new WorkloadPair(p.newer().job().signature(), p.older().job().signature(), gpus));
            out.add(new Decision.Preempt(p.newer().id(), String.format(Locale.ROOT,
                    "split %s from %s: observed %.2f/%.2f (sum %.2f) below bound %.2f or gain %.2f", p.newer().id(), p.older().id(),
                    p.older().observedSpeed(), p.newer().observedSpeed(), p.combined(), cfg.minSpeed(), cfg.minGain() / 2)));
        }
    }
}
