package dev.tandem.core.policies;

import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.Node;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Makes room for a short waiting job by suspending much longer running ones, as SRTF does, for tandem's
 * completion-time objectives. Without it short jobs that arrive while long ones hold every GPU (and every partner
 * slot) wait for them: on the Alibaba trace on 16 GPUs the mean pod waited 200 h, most of them for more than a week.
 *
 * <p>Suspending costs the suspended job a restart and, for a gang, its place until enough GPUs drain again, so it
 * is done only where it pays:
 * <ul>
 *   <li>the waiting job q is <i>overdue</i>: it has waited at least as long as it still needs to run (slowdown 2
 *       already) and at least {@link #MIN_RUN_SECONDS}, so a job that will get a GPU or a partner soon is not worth
 *       a suspension;</li>
 *   <li>a running job r may not be suspended for q if the two were submitted at the same instant: jobs submitted
 *       together are ordered once, by the queue order, and not re-ranked by suspending one another (on the demo batch
 *       that churn cost 4-8% of makespan). A job submitted before q was chosen without news of q; one submitted after
 *       q and started while q waited was chosen because q had nowhere to go (no idle GPU for it, no running job it
 *       could share one with), not because it ranks above q: on a small cluster such jobs joined every job that ended
 *       a pair and kept the GPUs from ever draining, and a 46-minute job that could share with none of them waited
 *       26 hours on one GPU ({@code --jobs 12 --cluster 1x1:RTX3090-24GB --arrival poisson:2 --sizes 1 --seed 6}).
 *       Only for a q that needs one GPU: an overdue gang still suspends only jobs submitted before it (it has
 *       reservations; suspending later single-GPU jobs for gangs as well raised the mean JCT of 100,000 jobs on 2,000
 *       GPUs from 10.1 h to 11.3 h, long single-GPU jobs suspended again and again, and their own waits starting anew).
 *       Where r's length is unknown ({@link SchedulerSnapshot#knowsLength}) the rule is its own, whatever q's size:
 *       r was chosen without knowing how long it runs, the service it has had since is the news, so jobs of unknown
 *       length submitted together take turns by least attained service (as Tiresias' queues do), and a job submitted
 *       before r may not suspend it (letting it raised the Philly replay's mean JCT without lengths from 19.2 h to
 *       22.5 h). On the demo without
 *       lengths ({@code --knowledge none}, seeds 1-8) that kept 95.2% of tandem's exact-length gain over FIFO instead
 *       of 90.7%, at 29.2 h mean JCT instead of 29.5 h;</li>
 *   <li>r has at least {@link #RATIO} times q's remaining solo time left, has run at least {@link #MIN_RUN_SECONDS}
 *       since it last started, and is not on the critical path (the caller says where that begins). The running job
 *       with the most left is on it too when it outlasts the unfinished work spread over every GPU: it then ends last
 *       whatever the rest does, and each suspension adds to the makespan (on Alibaba's gpushare100 trace the job that
 *       set the makespan was suspended 16 times in a burst of short pods).</li>
 * </ul>
 * Among nodes that can give q its GPUs, the one that suspends the fewest jobs wins, then the one whose suspended
 * jobs have the most time left. Suspended jobs return to the queue and are ordered by their remaining time like any
 * other. tandem looks for room before it pairs waiting jobs with running ones: the other way round, a job a pair left
 * behind got a new partner first, and the GPU then held a job too young to suspend. On one GPU
 * ({@code --jobs 12 --cluster 1x1:RTX3090-24GB --arrival poisson:2 --sizes 1 --seed 6}) that took the mean JCT from
 * 16.6 h to 13.5 h (fifo-packed 13.2 h).
 *
 * <p>A job at the starvation bound ({@link QueueOrder#starving}) is tried before all of them, and only the job that
 * ends last protects a running job from it: it may suspend jobs of any length, submitted when they were, even ones
 * that started less than {@link #MIN_RUN_SECONDS} ago (under a stream of short jobs some GPU of every node always
 * holds one, and an 8-GPU pod on Alibaba waited 201 h for a whole node), jobs on the critical path where no other
 * room is left (with noisy lengths, Alibaba's estimates put a critical job on both nodes, and a pod waited 237 h),
 * and the jobs on GPUs held for a gang ({@link Reservation}; it may be that gang). It takes GPUs off the critical
 * path first, then those whose jobs have the least time left: they resume soonest (suspending those with the most
 * left, the long jobs that end the schedule, cost Alibaba 4% of its makespan). A suspended job's wait starts anew,
 * so starving jobs take turns rather than suspend one another back. Without this rule the longest waits were 338 h
 * on Alibaba and 933 h on Philly, mostly gangs that needed whole nodes while single-GPU jobs kept taking what freed up.
 *
 * <p>A round looks at up to {@link #NODES_PER_TRY} nodes; on a larger cluster, from where the last round's look
 * ended, and tandem decides there at most every {@link TandemPolicy#DECISION_PERIOD_ON_LARGE_CLUSTERS_SECONDS}
 * seconds.
 */
final class ShortestFirstPreemption {
    /** A running job is outranked by a waiting one with at most 1/RATIO of its remaining time. */
    static final double RATIO = 2.0;
    /** A job runs at least this long after a (re)start before it can be suspended again. */
    static final double MIN_RUN_SECONDS = 600;
    /** Waiting jobs one round tries to make room for (each try scans the cluster's GPUs)... */
    static final int TRIES_PER_ROUND = 32;
    /** ...stopping after this many found none: later jobs are no shorter, so they rarely find room where these did not. */
    static final int FAILURES_PER_ROUND = 4;
    /** Nodes one try looks at on a larger cluster (all of them up to this size). */
    static final int NODES_PER_TRY = 32;

    private ShortestFirstPreemption() {}

    /** A waiting job that has waited as long as it still needs to run, with that remaining solo time. */
    private record Overdue(PendingJob job, double remaining) {}

    /**
     * For the overdue waiting jobs, shortest first, suspends outranked running jobs to start them; adds the Preempt and Start
     * decisions to {@code out} and updates {@code view}.
     *
     * @param waitingSeconds    each waiting job's remaining solo time, by place in {@code waiting}
     * @param keepBeyondSeconds running jobs with more solo time left than this are not suspended (the critical path)
     * @param workPerGpuSeconds the unfinished work at solo speed over the cluster's GPUs (NaN if not known)
     */
    static void makeRoom(SchedulerSnapshot s, ClusterView view, List<PendingJob> waiting, double[] waitingSeconds, double keepBeyondSeconds,
                         double workPerGpuSeconds, double starvationSeconds, Reservation reservation, List<Decision> out, GpuSummary summary) {
        // the overdue jobs a round can try: the TRIES_PER_ROUND shortest, in the order a stable sort by remaining time
        // gives (the waiting list's order among equals); a full sort of every overdue job was a twentieth of the run
        Overdue[] shortest = new Overdue[TRIES_PER_ROUND];
        int shortestCount = 0;
        List<Overdue> starving = new ArrayList<>();
        for (int k = 0; k < waiting.size(); k++) {
            PendingJob q = waiting.get(k);
            double waited = s.now() - q.queuedSince();
            boolean starves = QueueOrder.starving(s, q, starvationSeconds);
            // a suspension is worth its restart only after a wait this long (unless the operator set a shorter bound)
            if (waited < MIN_RUN_SECONDS && !starves) continue;
            double remaining = waitingSeconds[k];
            if (!Double.isFinite(remaining) || (!starves && waited < remaining)) continue;
            if (starves) {
                starving.add(new Overdue(q, remaining));
                continue;
            }
            if (shortestCount == TRIES_PER_ROUND && !(remaining < shortest[shortestCount - 1].remaining())) continue;
            int at = shortestCount == TRIES_PER_ROUND ? shortestCount - 1 : shortestCount++;
            while (at > 0 && shortest[at - 1].remaining() > remaining) { // strictly: an equal one found earlier stays ahead
                shortest[at] = shortest[at - 1];
                at--;
            }
            shortest[at] = new Overdue(q, remaining);
        }
        List<Overdue> overdue = java.util.Arrays.asList(shortest).subList(0, shortestCount);
        if (overdue.isEmpty() && starving.isEmpty()) return; // most rounds
        GpuSummary gpus = summary.begin(s, view, keepBeyondSeconds, workPerGpuSeconds);
        // starving jobs first, the longest wait first (the waiting list's order): they may suspend any job but the one
        // that ends last, the least left first, so that no wait outlasts the bound
        if (!starving.isEmpty()) {
            // GPUs held for a waiting gang still run the jobs it waits for: a starving job may suspend those too (it
            // may be that gang), and the hold ends if it does (its gang reserves again when it next cannot start)
            List<Integer> held = reservation.active() ? reservation.gpus() : List.of();
            if (!held.isEmpty()) {
                reservation.release(view);
                for (int g : held) gpus.vacate(g);
            }
            int decided = out.size();
            tryRooms(s, view, starving, true, gpus, out);
            if (!held.isEmpty()) {
                boolean taken = false;
                for (Decision d : out.subList(decided, out.size())) {
                    if (d instanceof Decision.Start start) for (int g : start.gpus()) taken |= held.contains(g);
                }
                if (taken) reservation.clear();
                else reservation.holdAgain(view);
                for (int g : held) gpus.vacate(g);
            }
        }
        // the shortest first, whatever the order of the waiting list: in it, jobs past the starvation bound lead, and on
        // the Philly replay such long jobs, finding no running job twice as long, used up a round's failures before any
        // short job was tried (12% of the jobs under 6 minutes then waited more than a day; mean JCT 37.3 h, now 14.5 h)
        tryRooms(s, view, overdue, false, gpus, out);
    }

    /**
     * Suspends running jobs to start each of {@code candidates} in turn, up to a round's tries and failures.
     *
     * @param starving the candidates are starving: any job but the one that ends last may make room for them; else
     *                 they are overdue, and only much longer running jobs not submitted with them make room
     */
    private static void tryRooms(SchedulerSnapshot s, ClusterView view, List<Overdue> candidates, boolean starving, GpuSummary gpus,
                                 List<Decision> out) {
        int tries = 0, failures = 0;
        // for starving jobs a room depends only on the gang's size and memory: once one found none, no larger need can
        // succeed this round, and trying it would only use up the round's tries (on Philly the longest waits are
        // gangs of 16-128 GPUs, and they kept the 8-GPU ones behind them from ever being tried)
        int failedGpus = Integer.MAX_VALUE;
        long failedMemory = Long.MAX_VALUE;
        for (Overdue o : candidates) {
            PendingJob q = o.job();
            double remaining = o.remaining();
            long memory = s.memoryRule().charged(s.memoryNeed(q.job()));
            if (starving && q.job().gpus() >= failedGpus && memory >= failedMemory) continue;
            if (++tries > TRIES_PER_ROUND) return;
            Optional<List<Integer>> room = gpus.bestRoom(q, remaining, starving);
            if (room.isEmpty()) {
                if (starving) {
                    if (q.job().gpus() <= failedGpus && memory <= failedMemory) {
                        failedGpus = q.job().gpus();
                        failedMemory = memory;
                    }
                    continue;
                }
                if (++failures == FAILURES_PER_ROUND) return;
                continue;
            }
            Set<RunningJob> suspended = new LinkedHashSet<>();
            for (int g : room.get()) {
                for (Job j : view.occupants(g)) suspended.add(s.occupancy().job(j.id()).orElseThrow());
            }
            for (RunningJob r : suspended) {
                for (int g : view.gpusOf(r.id())) gpus.vacate(g);
                view.remove(r.id());
                out.add(new Decision.Preempt(r.id(), String.format(Locale.ROOT,
                        "suspended for %s, which has waited %.0f s: %.0f s left against its %.0f s (%s)", q.id(),
                        s.now() - q.queuedSince(), s.expectedSoloSeconds(r), remaining, starving ? "past the starvation bound" : "shortest first")));
            }
            view.place(q.job(), room.get());
            for (int g : room.get()) gpus.occupy(g);
            out.add(new Decision.Start(q.id(), room.get(), String.format(Locale.ROOT,
                    "%s: GPU(s) %s freed by suspending %s", starving ? "starving" : "shortest first", room.get(),
                    suspended.stream().map(RunningJob::id).toList())));
        }
    }

    /**
     * Per GPU, what decides whether its occupants may be suspended for some waiting job, summarised on first use in a round:
     * whether every occupant may be suspended at all (it started before this round, ran long enough, is not on the
     * critical path), the least solo time any of them has left, and when they were submitted. A waiting job q can then
     * take the GPU if the least time left is at least {@link #RATIO} x q's and no occupant was submitted with q (nor
     * after q, if of unknown length or q is a gang): a few comparisons per GPU instead of a look-up per occupant and try.
     */
    static final class GpuSummary {
        private boolean[] suspendable = new boolean[0];
        /** Some occupant started less than {@link #MIN_RUN_SECONDS} ago (suspendable only for a starving job). */
        private boolean[] young = new boolean[0];
        /** Some occupant is on the critical path (suspendable only for a starving job). */
        private boolean[] onCriticalPath = new boolean[0];
        private double[] leastLeft = new double[0];
        /** The earliest and latest submission of an occupant of known length (NaN: none): a GPU holds at most {@link dev.tandem.core.runtime.PlacementRules#MAX_JOBS_PER_GPU} = 2 jobs, so these name every one. */
        private double[] earliestKnownSubmit = new double[0];
        private double[] latestKnownSubmit = new double[0];
        /** The latest submission of an occupant of unknown length, a hair earlier (see {@link #occupant}). */
        private double[] latestUnknownSubmit = new double[0];
        private int[] occupants = new int[0];
        /**
         * The round a GPU was last summarised in: the arrays are kept across rounds (one policy owns the summary), so a
         * round costs the GPUs it looks at, not an allocation of every GPU's entry.
         */
        private int[] summarisedIn = new int[0];
        private int round;

        /** The GPU being summarised, as its occupants are read ({@link #occupant}). */
        private boolean accOk, accYoung, accCritical;
        private double accLeast, accEarliestKnown, accLatestKnown, accLatestUnknown;
        private int accCount;
        private final dev.tandem.core.policy.Occupancy.OccupantReader reader = this::occupant;

        private SchedulerSnapshot s;
        private ClusterView view;
        private double keepBeyondSeconds;
        private double workPerGpuSeconds;
        /** Whether this round has looked for the running job that ends last (see {@link #keepLongest}). */
        private boolean longestKnown;
        /** A running job with at least this much solo time left ends last whatever happens (see {@link #keepLongest}). */
        private double keepFromSeconds;
        /** Which running job has the most left, kept across rounds. */
        private final LongestRunning longestRunning = new LongestRunning();
        /**
         * On a cluster of more than {@link #NODES_PER_TRY} nodes, the first node this round's tries look at, and whether
         * one of them looked: the next round then starts where this one's nodes end, so that successive looks cover the
         * cluster in turn. It moves with the looks, not with the clock, so that worlds whose clocks differ by a rounding
         * (the daemon counts milliseconds) look at the same nodes.
         */
        private int firstNode;
        private boolean looked;

        /** Starts a round's summary: nothing summarised yet. */
        GpuSummary begin(SchedulerSnapshot s, ClusterView view, double keepBeyondSeconds, double workPerGpuSeconds) {
            int n = s.cluster().gpuCount();
            if (summarisedIn.length != n) {
                suspendable = new boolean[n];
                young = new boolean[n];
                onCriticalPath = new boolean[n];
                leastLeft = new double[n];
                earliestKnownSubmit = new double[n];
                latestKnownSubmit = new double[n];
                latestUnknownSubmit = new double[n];
                occupants = new int[n];
                summarisedIn = new int[n];
                round = 0;
            }
            round++;
            int nodes = s.cluster().nodes().size();
            if (nodes <= NODES_PER_TRY) firstNode = 0;
            else if (looked) firstNode = (firstNode + NODES_PER_TRY) % nodes;
            looked = false;
            this.s = s;
            this.view = view;
            this.keepBeyondSeconds = keepBeyondSeconds;
            this.workPerGpuSeconds = workPerGpuSeconds;
            this.longestKnown = false;
            this.keepFromSeconds = Double.POSITIVE_INFINITY;
            return this;
        }

        /**
         * Keeps the running job that ends last if it outlasts the work per GPU. Looked for only when an occupant
         * outlasts it (unknown work per GPU, NaN, never does): only such a job can be the one kept, so GPUs summarised
         * before are unaffected, and a round asks for the running job with the most left ({@link LongestRunning}) only
         * when the rule can apply.
         */
        private void keepLongest() {
            longestKnown = true;
            double longest = longestRunning.secondsLeft(s);
            if (longest >= workPerGpuSeconds) keepFromSeconds = longest;
        }

        /** Summarises a GPU on first use: a round looks at a bounded number of nodes, not the whole cluster. */
        private void summarise(int g) {
            if (summarisedIn[g] == round) return;
            summarisedIn[g] = round;
            accOk = true;
            accYoung = false;
            accCritical = false;
            accLeast = Double.POSITIVE_INFINITY;
            accEarliestKnown = Double.NaN;
            accLatestKnown = Double.NaN;
            accLatestUnknown = Double.NEGATIVE_INFINITY;
            accCount = 0;
            // as the world has it, unless this round changed it (then per occupant: a job placed this round is not
            // running in the world, so not suspendable; nor is a GPU held for a waiting gang)
            if (view.unchanged(g)) {
                s.occupancy().readOccupants(g, reader);
            } else {
                List<Job> jobs = view.occupants(g);
                List<RunningJob> on = new ArrayList<>(jobs.size());
                for (Job j : jobs) {
                    Optional<RunningJob> r = s.occupancy().job(j.id());
                    if (r.isEmpty()) {
                        accOk = false;
                        break;
                    }
                    on.add(r.get());
                }
                if (view.held(g)) accOk = false; // held for a waiting gang: only a starving job's round releases the hold first
                for (RunningJob r : on) occupant(r.job(), r.startedAt(), r.remainingIterations(), r.attainedGpuSeconds(), r.lengthKnown());
                accCount = jobs.size();
            }
            young[g] = accYoung;
            onCriticalPath[g] = accCritical;
            suspendable[g] = accOk; // an idle GPU too: with GPUs freed beside it, it can complete a gang's room
            leastLeft[g] = accLeast;
            earliestKnownSubmit[g] = accEarliestKnown;
            latestKnownSubmit[g] = accLatestKnown;
            latestUnknownSubmit[g] = accLatestUnknown;
            occupants[g] = accCount;
        }

        /** One occupant of the GPU being summarised; once one may not be suspended, the rest are not looked at. */
        private void occupant(Job job, double startedAt, double remainingIterations, double attainedGpuSeconds, boolean lengthKnown) {
            accCount++;
            if (!accOk) return;
            boolean known = s.knowsLength(lengthKnown);
            double left = s.expectedSoloSeconds(job, remainingIterations, attainedGpuSeconds, lengthKnown);
            // the critical path and the job that ends last are judged by lengths: a job without one is on neither
            if (known && !longestKnown && left >= workPerGpuSeconds) keepLongest();
            if (known && left >= keepFromSeconds) accOk = false;
            if (known && left > keepBeyondSeconds) accCritical = true;
            if (s.now() - startedAt < MIN_RUN_SECONDS) accYoung = true;
            accLeast = Math.min(accLeast, left);
            if (known) {
                double t = job.submitTime();
                accEarliestKnown = Double.isNaN(accEarliestKnown) ? t : Math.min(accEarliestKnown, t);
                accLatestKnown = Double.isNaN(accLatestKnown) ? t : Math.max(accLatestKnown, t);
            } else {
                // a job of unknown length was chosen without news of how long it runs: the service it has had since is
                // that news, so it may make room for a job submitted with it (least attained service first). It counts
                // as submitted a hair earlier, so that the one test (latest >= q's submission) lets q submitted at the
                // same instant suspend it, and still not q submitted before it
                accLatestUnknown = Math.max(accLatestUnknown, Math.nextDown(job.submitTime()));
            }
        }

        /**
         * A job on it was suspended: summarised again when next asked. It is not simply idle: another of a gang's GPUs
         * may still hold a job, or GPUs held for a waiting gang ({@link Reservation}), which no one may take.
         */
        void vacate(int g) {
            summarisedIn[g] = 0; // no round is 0
        }

        /** A job started on it this round. */
        void occupy(int g) {
            summarisedIn[g] = round;
            suspendable[g] = false;
            occupants[g] = 1;
        }

        /**
         * The GPUs of one node for q: on the node that suspends the fewest jobs (then whose suspended jobs have the
         * most time left), the freeable GPUs whose occupants have the most time left. For a starving q: on the node
         * that suspends the fewest jobs on the critical path, then the fewest jobs, then those with the least left,
         * the GPUs in {@link #forStarving} order; a gang wider than any node takes several ({@link #spanningRoom}).
         */
        Optional<List<Integer>> bestRoom(PendingJob q, double remaining, boolean starving) {
            int need = q.job().gpus();
            long memory = s.memoryRule().charged(s.memoryNeed(q.job()));
            List<Integer> best = null;
            int bestSuspended = Integer.MAX_VALUE, bestCritical = Integer.MAX_VALUE;
            double bestLeft = Double.NEGATIVE_INFINITY;
            List<Node> nodes = s.cluster().nodes();
            if (starving && need > s.cluster().maxGpusPerNode()) return spanningRoom(need, memory);
            // on a large cluster, NODES_PER_TRY nodes from where the last round's look ended: the cost of a try stays
            // bounded, and over rounds every node is looked at
            int first = firstNode % nodes.size();
            looked = true;
            for (int k = 0; k < Math.min(NODES_PER_TRY, nodes.size()); k++) {
                Node node = nodes.get((first + k) % nodes.size());
                if (node.gpus().size() < need) continue;
                List<Integer> freeable = null;
                for (Gpu g : node.gpus()) {
                    int id = g.id();
                    summarise(id);
                    if (g.type().memoryMiB() < memory || !s.occupancy().usable(id) || !suspendable[id]) continue;
                    if (!starving && (young[id] || onCriticalPath[id] || !(leastLeft[id] >= RATIO * remaining) || protectedFrom(id, q))) continue;
                    if (freeable == null) freeable = new ArrayList<>();
                    freeable.add(id);
                }
                if (freeable == null || freeable.size() < need) continue;
                // a starving job takes GPUs off the critical path first, then idle ones, then those whose jobs have the least left
                if (starving) freeable.sort(forStarving());
                else freeable.sort(Comparator.comparingDouble((Integer g) -> -leastLeft[g]).thenComparingInt(g -> g)); // idle first
                List<Integer> chosen = freeable.subList(0, need);
                int suspended = 0, critical = 0;
                double left = 0;
                for (int g : chosen) {
                    suspended += occupants[g];
                    if (onCriticalPath[g]) critical++;
                    if (occupants[g] > 0) left += leastLeft[g];
                }
                if (suspended == 0) continue; // all idle: anchoring had its chance
                if (starving) left = -left;
                if (critical < bestCritical || (critical == bestCritical
                        && (suspended < bestSuspended || (suspended == bestSuspended && left > bestLeft)))) {
                    best = chosen.stream().sorted().toList();
                    bestCritical = critical;
                    bestSuspended = suspended;
                    bestLeft = left;
                }
            }
            return Optional.ofNullable(best);
        }

        /**
         * Whether q may not suspend GPU g's occupants for when they were submitted (see {@link ShortestFirstPreemption}): one
         * was submitted with q, or after q and is of unknown length or q is a gang.
         */
        private boolean protectedFrom(int g, PendingJob q) {
            double t = q.job().submitTime();
            if (q.job().gpus() > 1) return latestKnownSubmit[g] >= t || latestUnknownSubmit[g] >= t;
            return earliestKnownSubmit[g] == t || latestKnownSubmit[g] == t || latestUnknownSubmit[g] >= t;
        }

        /** The order a starving job takes GPUs in: off the critical path first, then idle ones, then the least left. */
        private Comparator<Integer> forStarving() {
            return Comparator.comparing((Integer g) -> onCriticalPath[g])
                    .thenComparingDouble(g -> occupants[g] == 0 ? Double.NEGATIVE_INFINITY : leastLeft[g]).thenComparingInt(g -> g);
        }

        /**
         * For a starving gang wider than any node (where the cluster lets gangs span nodes): whole nodes first, the
         * nodes with the most GPUs that can be freed, and on each the GPUs in {@link #forStarving} order.
         */
        private Optional<List<Integer>> spanningRoom(int need, long memory) {
            if (!s.cluster().gangsSpanNodes()) return Optional.empty();
            List<List<Integer>> perNode = new ArrayList<>();
            int total = 0;
            for (Node node : s.cluster().nodes()) {
                List<Integer> freeable = new ArrayList<>();
                for (Gpu g : node.gpus()) {
                    int id = g.id();
                    summarise(id);
                    if (g.type().memoryMiB() >= memory && s.occupancy().usable(id) && suspendable[id]) freeable.add(id);
                }
                if (freeable.isEmpty()) continue;
                freeable.sort(forStarving());
                perNode.add(freeable);
                total += freeable.size();
            }
            if (total < need) return Optional.empty();
            perNode.sort(Comparator.comparingInt((List<Integer> f) -> -f.size())); // stable: node order among equals
            List<Integer> chosen = new ArrayList<>(need);
            for (List<Integer> freeable : perNode) {
                for (int g : freeable) {
                    if (chosen.size() == need) break;
                    chosen.add(g);
                }
            }
            int suspended = 0;
            for (int g : chosen) suspended += occupants[g];
            if (suspended == 0) return Optional.empty(); // all idle: anchoring had its chance
            return Optional.of(chosen.stream().sorted().toList());
        }
    }
}
