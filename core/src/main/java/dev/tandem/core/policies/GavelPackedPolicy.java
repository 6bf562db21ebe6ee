package dev.tandem.core.policies;

import dev.tandem.core.compat.PairPrediction;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Pairing;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Gavel's FIFO with space sharing as its simulator runs it (Narayanan et al., OSDI'20, {@code fifo_packed}): the
 * allocation is rebuilt from scratch at every round's end, as Gavel recomputes it at every round. Every unfinished job,
 * running or waiting, in submission order: the oldest get GPUs of their own while the cluster's GPU count lasts (FIFO:
 * the first that does not fit ends this step); each later job, in order, is packed with the exclusive job of its gang
 * size that gives the highest normalised throughput sum (each job's co-located speed over its solo speed, as the
 * oracle predicts it), if that is at least {@code threshold} (1.5 in Gavel) and no other job was packed with it. The
 * allocation is then carried out with as few moves as it allows: jobs outside it are suspended, jobs that share GPUs
 * though both should run alone are separated (the newer moves), a packed job moves next to its partner; every stop
 * and move costs the restart overhead of the world (Gavel's re-packing is free, see below).
 *
 * <p>Rounds as in Gavel's simulator: an allocation holds for a round ({@link #GAVEL_ROUND_SECONDS}, its default
 * {@code time_per_iteration}); jobs that arrive inside it, and GPUs freed by jobs that end inside it, wait for its end,
 * and a new round begins at once when nothing runs. Every world asks the policy at each round's end
 * ({@link #decidesInRounds()}).
 *
 * <p>Where it differs from Gavel: a higher priority goes first (Gavel has none); GPUs are placed (a gang on one node when it fits, through the world's placement
 * rules), where Gavel counts workers per type; a job whose allocation cannot be placed (fragmented GPUs) waits for the
 * next round; one decision allocates the running jobs and the first {@link #WINDOW} waiting ones (Gavel all of
 * them); moves cost the restart overhead; a heterogeneous cluster is one pool of GPUs. tandem's
 * {@code fifo-packed} is the same packing rule without rounds or re-packing: it packs only the blocked head, at every
 * event, and never moves a running job.
 */
public final class GavelPackedPolicy implements Policy {
    /** Higher priority first (tandem's queue rule; Gavel has no priorities), then submission. */
    private static final Comparator<Job> ORDER = Comparator.comparingInt((Job j) -> -j.priority())
            .thenComparing((a, b) -> a == b ? 0 : a.submittedAfter(b) ? 1 : -1);

    /** Gavel's round length ({@code --time_per_iteration} of its simulator, 360 s by default). */
    public static final double GAVEL_ROUND_SECONDS = 360;

    private final double threshold;
    private final double roundSeconds;
    private final String name;
    /** When the current round's allocation stops holding; -infinity before the first. */
    private double roundEndsAt = Double.NEGATIVE_INFINITY;

    /** Gavel's packing threshold: a pair's normalised throughput sum must reach it. */
    public static final double GAVEL_THRESHOLD = 1.5;

    public GavelPackedPolicy() { this(GAVEL_THRESHOLD, GAVEL_ROUND_SECONDS); }

    /** With {@code roundSeconds} 0 the allocation is rebuilt at every scheduling point (no rounds). */
    public GavelPackedPolicy(double threshold, double roundSeconds) {
        this(threshold, roundSeconds, "gavel-packed");
    }

    /** As above, under a name of its own (a variant beside the default in one run: {@code gavel-packed:120s}). */
    public GavelPackedPolicy(double threshold, double roundSeconds, String name) {
        if (!(roundSeconds >= 0) || Double.isInfinite(roundSeconds)) throw new IllegalArgumentException("round length must be >= 0 s, not " + roundSeconds);
        this.threshold = threshold;
        this.roundSeconds = roundSeconds;
        this.name = name;
    }

    @Override public String name() { return name; }

    /** A pair can dissolve when a job ends although nothing waits (both then get GPUs of their own). */
    @Override public boolean actsOnRunningJobs() { return true; }

    /**
     * The end of the current round: what arrived, ended or was learnt from a speed observation since its start is
     * allocated then. Without rounds, never: time alone changes nothing in the allocation.
     */
    @Override public double wakeUpAt() { return roundSeconds > 0 ? roundEndsAt : Double.POSITIVE_INFINITY; }

    @Override public boolean decidesInRounds() { return roundSeconds > 0; }

    /**
     * Tolerance on a round's end: a daemon's clock counts milliseconds, and the moment it is asked at may be a
     * rounding below the end it was given.
     */
    private static final double ROUND_END_SLACK_SECONDS = 1e-6;

    /** Waiting jobs one decision allocates beyond the running ones (Gavel looks at all of them). */
    static final int WINDOW = 4096;

    /** A job packed with an exclusive one, and the oracle's answer for the pair. */
    record Packed(Job guest, Job host, PairPrediction prediction) {}

    /**
     * The allocation of one decision: who runs alone (in order), who is packed with whom (in order, and by guest), and
     * which of the jobs ran when it was made. Sets and maps of the snapshot's own Job objects, by identity: a decision
     * may allocate thousands of jobs, and hashing their ids was a tenth of what one allocated.
     */
    record Allocation(List<Job> exclusive, Set<Job> isExclusive, List<Packed> packed, Map<Job, Packed> packedBy, Set<Job> running) {}

    private static <T> Set<T> identitySet(int expected) {
        return java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>(expected));
    }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        if (roundSeconds > 0) {
            if (s.now() < roundEndsAt - ROUND_END_SLACK_SECONDS && !s.running().isEmpty()) return List.of(); // the round's allocation holds
            roundEndsAt = s.now() + roundSeconds;
        }
        if (s.queue().isEmpty() && s.running().stream().allMatch(r -> soleTenant(s, r))) return List.of(); // nothing to re-pack
        return carryOut(s, allocate(s));
    }

    private static boolean onUsableGpus(SchedulerSnapshot s, Job job) {
        if (s.occupancy().allUsable()) return true;
        for (int g : s.occupancy().gpusOf(job.id())) if (!s.occupancy().usable(g)) return false;
        return true;
    }

    private static boolean soleTenant(SchedulerSnapshot s, RunningJob r) {
        for (int g : r.gpus()) if (s.occupancy().jobsOn(g).size() != 1) return false;
        return true;
    }

    /** Hosts of one workload and gang size, free to take a partner, oldest first; the memory charged to the oldest. */
    private static final class HostGroup {
        final java.util.ArrayDeque<Job> free = new java.util.ArrayDeque<>();
        long headChargedMiB;

        /** Adds a host younger than those in the group; the first one added is the head. */
        void add(SchedulerSnapshot s, Job host) {
            if (free.isEmpty()) headChargedMiB = charged(s, host);
            free.add(host);
        }

        /** The oldest free host, now taken; the next one becomes the head. */
        void takeHead(SchedulerSnapshot s) {
            free.pollFirst();
            if (!free.isEmpty()) headChargedMiB = charged(s, free.peekFirst());
        }

        private static long charged(SchedulerSnapshot s, Job host) {
            return s.memoryRule().charged(s.memoryNeed(host));
        }
    }

    /**
     * Guests that agree on workload, gang size and charged memory find the same hosts (conflicts and predictions depend
     * on nothing else of theirs); with how many hosts had been taken when one of them last found none. Chained per
     * workload and looked up without allocating: a decision asks for every waiting guest.
     */
    private static final class GuestKind {
        final int gpus;
        final long chargedMiB;
        final GuestKind next;
        int foundNoneAt = -1;
        /** Shared by the kinds of one workload and gang size (their memory differs, their predictions do not). */
        final Ranking ranking;

        GuestKind(int gpus, long chargedMiB, GuestKind next, Ranking ranking) {
            this.gpus = gpus;
            this.chargedMiB = chargedMiB;
            this.next = next;
            this.ranking = ranking;
        }

        static GuestKind of(Map<WorkloadSignature, GuestKind> kinds, Job guest, long chargedMiB) {
            GuestKind first = kinds.get(guest.signature());
            Ranking ranking = null;
            for (GuestKind k = first; k != null; k = k.next) {
                if (k.gpus != guest.gpus()) continue;
                if (k.chargedMiB == chargedMiB) return k;
                ranking = k.ranking;
            }
            GuestKind k = new GuestKind(guest.gpus(), chargedMiB, first, ranking != null ? ranking : new Ranking());
            kinds.put(guest.signature(), k);
            return k;
        }
    }

    /**
     * The host groups of a guest's gang size whose workload its workload may pair with (a known prediction at least the
     * threshold, no out-of-memory crash together), best normalised throughput first, with that sum; made when the first
     * guest of the workload and size looks. Within a decision only a group's oldest free host changes, and with it only
     * whether the memory fits: a guest looks down this list instead of asking the oracle about every group.
     */
    private static final class Ranking {
        HostGroup[] groups;
        double[] combined;
    }

    /** Gavel's allocation over the running jobs and the first {@link #WINDOW} waiting ones, in submission order. */
    Allocation allocate(SchedulerSnapshot s) {
        int window = Math.min(WINDOW, s.queue().size());
        List<Job> jobs = new ArrayList<>(s.running().size() + window);
        Set<Job> running = identitySet(s.running().size());
        for (RunningJob r : s.running()) {
            jobs.add(r.job());
            running.add(r.job());
        }
        for (int i = 0; i < window; i++) jobs.add(s.queue().get(i).job());
        jobs.sort(ORDER);
        int capacity = 0; // GPUs the scheduler can give out or holds: not those idle ones someone else's processes took
        for (int g = 0; g < s.cluster().gpuCount(); g++) if (s.occupancy().usable(g) || !s.occupancy().jobsOn(g).isEmpty()) capacity++;
        long smallestGpu = s.cluster().minGpuMemoryMiB();
        List<Job> exclusive = new ArrayList<>();
        int next = 0;
        for (; next < jobs.size() && jobs.get(next).gpus() <= capacity; next++) {
            exclusive.add(jobs.get(next));
            capacity -= jobs.get(next).gpus();
        }
        // hosts that agree on workload and gang size are interchangeable to a guest: one prediction per group, and the
        // group's oldest free host, as a scan of the exclusive jobs in order would take the first of equally good ones
        // (in the order of their oldest host, per gang size: a guest only joins a host of its own size)
        Map<WorkloadSignature, Map<Integer, HostGroup>> index = new HashMap<>();
        Map<Integer, List<HostGroup>> groupsBySize = new HashMap<>();
        int free = 0;
        for (Job host : exclusive) {
            if (!onUsableGpus(s, host) || s.runsAlone(host) != null) continue; // it keeps running, but nobody joins it there
            Map<Integer, HostGroup> bySize = index.computeIfAbsent(host.signature(), sig -> new HashMap<>());
            HostGroup g = bySize.get(host.gpus());
            if (g == null) {
                bySize.put(host.gpus(), g = new HostGroup());
                groupsBySize.computeIfAbsent(host.gpus(), n -> new ArrayList<>()).add(g);
            }
            g.add(s, host);
            free++;
        }
        List<Packed> packed = new ArrayList<>();
        Map<Job, Packed> packedBy = new java.util.IdentityHashMap<>();
        // guests of a kind that found no host need not look again until a host is taken (which changes a group's
        // oldest free host): on an overloaded cluster thousands of guests wait, mostly of kinds that fit no host, and
        // on the Philly replay every guest looking at every group was three quarters of the run
        Map<WorkloadSignature, GuestKind> kinds = new HashMap<>();
        int taken = 0;
        for (int i = next; i < jobs.size() && free > 0; i++) {
            Job guest = jobs.get(i);
            List<HostGroup> sameSize = groupsBySize.get(guest.gpus());
            if (sameSize == null || s.runsAlone(guest) != null) continue;
            long need = s.memoryRule().charged(s.memoryNeed(guest));
            GuestKind kind = GuestKind.of(kinds, guest, need);
            if (kind.foundNoneAt == taken) continue;
            if (kind.ranking.groups == null) rank(s, kind.ranking, guest, sameSize);
            HostGroup bestGroup = bestGroup(s, kind, guest, smallestGpu);
            if (bestGroup == null) {
                kind.foundNoneAt = taken;
                continue;
            }
            Job best = bestGroup.free.peekFirst();
            PairPrediction bestPr = s.predict(guest, best);
            bestGroup.takeHead(s);
            taken++;
            free--;
            Packed pk = new Packed(guest, best, bestPr);
            packed.add(pk);
            packedBy.put(guest, pk);
        }
        Set<Job> isExclusive = identitySet(exclusive.size());
        isExclusive.addAll(exclusive);
        return new Allocation(exclusive, isExclusive, packed, packedBy, running);
    }

    /**
     * Ranks the groups for the workload and gang size of {@code guest} (see {@link Ranking}): an insertion sort into two
     * arrays, as there are as many groups as workloads running alone (tens), and a decision ranks for each waiting one.
     */
    private void rank(SchedulerSnapshot s, Ranking ranking, Job guest, List<HostGroup> groups) {
        HostGroup[] ranked = new HostGroup[groups.size()];
        double[] combined = new double[groups.size()];
        int n = 0;
        SchedulerSnapshot.PartnerPredictions withGuest = s.predictionsWith(guest); // its row of the memo, looked up once
        for (HostGroup g : groups) {
            Job host = g.free.peekFirst();
            if (host == null || s.crashedTogether(guest, host)) continue; // a group emptied in this decision stays empty
            PairPrediction pr = withGuest.predict(host);
            if (!Packing.reachesThreshold(pr, threshold)) continue;
            int at = n++;
            for (; at > 0 && combined[at - 1] < pr.combined(); at--) { // after equals: they keep the groups' order
                ranked[at] = ranked[at - 1];
                combined[at] = combined[at - 1];
            }
            ranked[at] = g;
            combined[at] = pr.combined();
        }
        ranking.groups = java.util.Arrays.copyOf(ranked, n);
        ranking.combined = java.util.Arrays.copyOf(combined, n);
    }

    /**
     * The group whose oldest free host pairs best with the guest (the highest normalised throughput sum, at least the
     * threshold; the older host of equals), or null: down the kind's ranking to the first host free of conflicts, then
     * past those as good as it for an older one.
     */
    private static HostGroup bestGroup(SchedulerSnapshot s, GuestKind kind, Job guest, long capacityMiB) {
        HostGroup bestGroup = null;
        Job best = null;
        double bestCombined = 0;
        Ranking ranking = kind.ranking;
        for (int i = 0; i < ranking.groups.length; i++) {
            if (bestGroup != null && ranking.combined[i] < bestCombined) break;
            HostGroup g = ranking.groups[i];
            Job host = g.free.peekFirst();
            if (host == null || Pairing.conflict(s, guest, kind.chargedMiB, host, g.headChargedMiB, capacityMiB) != null) continue;
            if (bestGroup == null || best.submittedAfter(host)) {
                bestGroup = g;
                best = host;
                bestCombined = ranking.combined[i];
            }
        }
        return bestGroup;
    }

    /**
     * Decisions that turn the current placement into the allocation, each valid when the world applies it in order:
     * first the stops (jobs outside the allocation, and packed jobs whose partner's GPUs are not free to join yet),
     * then the separations, the moves next to a partner, the starts of exclusive jobs and the starts of packed ones.
     */
    private List<Decision> carryOut(SchedulerSnapshot s, Allocation a) {
        ClusterView view = new ClusterView(s);
        List<Decision> out = new ArrayList<>(a.exclusive().size() + a.packed().size()); // a step for most allocated jobs at a round's end
        Set<Job> exclusive = a.isExclusive(), running = a.running();
        // 1. jobs the allocation leaves out
        for (RunningJob r : s.running()) {
            if (exclusive.contains(r.job()) || a.packedBy().containsKey(r.job())) continue;
            view.remove(r.id());
            out.add(new Decision.Preempt(r.id(), "gavel-packed: not in this round's allocation (older jobs hold the GPUs)"));
        }
        // 2. two jobs that should each run alone share GPUs: the newer moves to idle GPUs, or waits if there are none
        for (Job j : a.exclusive()) {
            if (!running.contains(j) || view.gpusOf(j.id()).isEmpty()) continue;
            int first = view.gpusOf(j.id()).getFirst();
            if (view.occupantCount(first) < 2) continue; // alone: nobody to part from (and no list of one made)
            for (Job other : view.occupants(first)) {
                if (other == j || !exclusive.contains(other) || !other.submittedAfter(j)) continue;
                view.remove(other.id());
                Optional<List<Integer>> idle = view.findIdle(other);
                if (idle.isPresent()) {
                    view.place(other, idle.get());
                    out.add(new Decision.Migrate(other.id(), idle.get(), "gavel-packed: re-packed to run alone on idle GPU(s) " + idle.get()));
                } else {
                    out.add(new Decision.Preempt(other.id(), "gavel-packed: re-packed to run alone; no idle GPUs for it yet"));
                }
                break;
            }
        }
        // 3. packed jobs running away from their partner move to it when its GPUs are free to join, else stop for now
        List<Packed> toJoin = new ArrayList<>();
        Map<Job, Packed> joinsGuest = new java.util.IdentityHashMap<>(); // waiting host -> the pair whose running guest it starts next to
        for (Packed pk : a.packed()) {
            String guest = pk.guest().id();
            Job host = pk.host();
            if (!running.contains(pk.guest())) {
                toJoin.add(pk);
                continue;
            }
            List<Integer> hostGpus = view.gpusOf(host.id());
            if (!hostGpus.isEmpty() && hostGpus.equals(view.gpusOf(guest))) continue; // already together
            if (hostGpus.isEmpty() && !running.contains(host) && alone(view, view.gpusOf(guest))) {
                joinsGuest.put(host, pk); // the pair forms where the guest runs: the host starts there
                continue;
            }
            view.remove(guest);
            if (!hostGpus.isEmpty() && joinable(view, hostGpus, pk.guest())) {
                view.place(pk.guest(), hostGpus);
                out.add(new Decision.Migrate(guest, hostGpus, packed(host.id(), pk.prediction().combined())));
            } else {
                out.add(new Decision.Preempt(guest, "gavel-packed: re-packed with job " + host.id() + ", whose GPUs are not free to join yet"));
                toJoin.add(pk);
            }
        }
        // 4. exclusive jobs that wait start on idle GPUs, oldest first
        for (Job j : a.exclusive()) {
            if (running.contains(j)) continue;
            Packed pair = joinsGuest.get(j);
            if (pair != null) {
                List<Integer> there = view.gpusOf(pair.guest().id());
                if (joinable(view, there, j)) {
                    view.place(j, there);
                    out.add(new Decision.Start(j.id(), there, packed(pair.guest().id(), pair.prediction().combined())));
                    continue;
                }
            }
            Optional<List<Integer>> idle = view.findIdle(j);
            if (idle.isEmpty()) continue; // fragmented: the next decision tries again
            view.place(j, idle.get());
            out.add(new Decision.Start(j.id(), idle.get(), "gavel-packed: its own GPU(s) " + idle.get() + " (FIFO)"));
        }
        // 5. packed jobs join their partner
        for (Packed pk : toJoin) {
            Job host = pk.host();
            List<Integer> hostGpus = view.gpusOf(host.id());
            if (hostGpus.isEmpty() || !joinable(view, hostGpus, pk.guest())) continue;
            view.place(pk.guest(), hostGpus);
            out.add(new Decision.Start(pk.guest().id(), hostGpus, packed(host.id(), pk.prediction().combined())));
        }
        return out;
    }

    /** Judged as an allocation is built: memory against the cluster's smallest GPU (where the pair may be placed). */
    @Override public Optional<String> pairingRefusal(SchedulerSnapshot s, Job guest, Job host, List<Integer> hostGpus) {
        Optional<String> conflict = Pairing.refusal(s, guest, host, s.cluster().minGpuMemoryMiB());
        if (conflict.isPresent()) return conflict;
        return Packing.belowThreshold(s.predict(guest, host), threshold);
    }

    /** The host is alone on its GPUs and the guest's memory fits next to it. */
    private static boolean joinable(ClusterView view, List<Integer> hostGpus, Job guest) {
        return alone(view, hostGpus) && view.memoryFits(guest, hostGpus);
    }

    private static boolean alone(ClusterView view, List<Integer> gpus) {
        for (int g : gpus) if (view.occupantCount(g) != 1) return false;
        return true;
    }

    /** Written into the reused reason buffer (a decision may start a thousand pairs: a builder each was an eighth of its bytes). */
    private String packed(String partner, double combined) {
        StringBuilder b = Packing.reason().append("gavel-packed: packed with ").append(partner).append(", normalised throughput ");
        Fixed.append(b, combined, 2).append(" >= ");
        return Fixed.append(b, threshold, 2).toString();
    }
}
