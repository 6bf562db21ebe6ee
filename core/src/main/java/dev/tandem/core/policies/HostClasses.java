package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Pairing;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.core.policy.SoleTenantJournal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The running jobs a queued job may join, grouped into classes of interchangeable hosts, for a packing policy's
 * rounds. Every packing rule judges a host only by its workload signature, its gang size and the memory it is
 * charged, so hosts that agree on those (and on their GPUs' capacity) are one class: a queued job is checked
 * against each class once instead of against every lone job on the cluster, and the oracle is asked once per
 * class.
 *
 * <p>Order is kept exactly as a full scan would see it: each host has a sequence number (the world's lone tenants in
 * the order they came to run alone, then the round's placements), {@link #candidatesFor} lists each class's earliest
 * host in that order, so a rule that takes the first best host picks the same host as it would from the full list.
 *
 * <p>Kept across rounds (one per policy): where the world keeps a {@link SoleTenantJournal}, a round begins by
 * taking back its previous round's own changes and following the world's, instead of regrouping every lone job (on
 * 100,000 jobs on 2,000 GPUs that regrouping was three quarters of fifo-packed's time). Without a journal, after an
 * out-of-memory crash taught a new memory estimate (hosts' charged memory moves), or for a view the round changed
 * before, the classes are rebuilt.
 */
final class HostClasses {
    private record Key(int gpus, WorkloadSignature signature, long memoryCharged, long capacity) {}

    private static final class HostClass {
        final Key key;
        /** Its members by sequence number (ordered as members, not by boxed numbers: a round may add a thousand). */
        final TreeSet<Member> hosts = new TreeSet<>(BY_SEQ);

        HostClass(Key key) { this.key = key; }
    }

    private record Member(HostClass hostClass, long seq, Packing.Host host) {}

    private static final Comparator<Member> BY_SEQ = Comparator.comparingLong(Member::seq);

    /** One change this round made, to be taken back before the next: a host added, or a member removed. */
    private record RoundChange(String addedId, Member removed) {}

    private final Map<Key, HostClass> classes = new HashMap<>();
    private final Map<String, Member> members = new HashMap<>();
    /** Each class's earliest member, by sequence number: the order a full scan would meet the classes in. */
    private final TreeSet<Member> firstHosts = new TreeSet<>(BY_SEQ);
    private long nextSeq;
    /** What {@link #candidatesFor} hands out: one list, refilled on each call (a queued job at a time). */
    private final List<Packing.Host> candidates = new ArrayList<>();
    private final List<RoundChange> roundChanges = new ArrayList<>();

    private SoleTenantJournal journal;
    private long journalAt;
    /** The memory estimates' size and sum when the classes were keyed: estimates only rise, so any change moves these. */
    private long estimatesSize = -1, estimatesSum;

    private SchedulerSnapshot snapshot;
    private ClusterView view;

    /**
     * Brings the classes to the lone tenants of {@code view} for a new round: the world's, in the order they came to run
     * alone, then the jobs this round placed on idle GPUs so far ({@code placedThisRound}, in order; the view's other
     * changes are not followed, so a view changed otherwise must be passed with {@code followWorld} false).
     *
     * @param followWorld whether the view has no changes but {@code placedThisRound}: only then may the classes kept
     *                    from earlier rounds stand for it
     */
    HostClasses begin(SchedulerSnapshot s, ClusterView view, boolean followWorld, List<Packing.Host> placedThisRound) {
        this.snapshot = s;
        this.view = view;
        SoleTenantJournal j = followWorld ? s.soleTenantJournal() : null;
        boolean mayFollow = j != null && j == journal && estimatesUnchanged(s);
        // the last round's own changes are taken back only for classes kept: a rebuild starts from the world anyway
        for (int k = roundChanges.size() - 1; mayFollow && k >= 0; k--) {
            RoundChange c = roundChanges.get(k);
            if (c.addedId() != null) removeMember(c.addedId());
            else putMember(c.removed());
        }
        roundChanges.clear();
        boolean followed = mayFollow && j.readSince(journalAt, (job, alone) -> {
            removeMember(job.id());
            if (!alone) return;
            List<Integer> gpus = s.occupancy().gpusOf(job.id());
            if (!gpus.isEmpty()) addMember(job, gpus); // else it has stopped since (a later change says so)
        });
        if (!followed) {
            classes.clear();
            members.clear();
            firstHosts.clear();
            if (followWorld) {
                for (Job r : s.occupancy().soleTenantJobs()) addMember(r, s.occupancy().gpusOf(r.id()));
            } else { // the view's own lone tenants, its changes included (and then nothing kept for the next round)
                for (Job r : view.soleTenants()) addMember(r, view.gpusOf(r.id()));
                placedThisRound = List.of();
            }
            recordEstimates(s);
        }
        journal = j;
        if (j != null) journalAt = j.count();
        for (Packing.Host h : placedThisRound) add(h.job(), h.gpus());
        return this;
    }

    /** A job now alone on {@code gpus} (placed this round on idle GPUs) becomes a host. */
    void add(Job job, List<Integer> gpus) {
        if (addMember(job, gpus)) roundChanges.add(new RoundChange(job.id(), null));
    }

    /** A host that was joined (or left) is no longer alone. */
    void remove(String jobId) {
        Member m = removeMember(jobId);
        if (m != null) roundChanges.add(new RoundChange(null, m));
    }

    private boolean addMember(Job job, List<Integer> gpus) {
        if (snapshot.runsAlone(job) != null) return false; // it takes no partner (and is no member, so remove() ignores it)
        long capacity = Long.MAX_VALUE;
        for (int g : gpus) capacity = Math.min(capacity, view.capacity(g));
        Key key = new Key(job.gpus(), job.signature(), snapshot.memoryRule().charged(snapshot.memoryNeed(job)), capacity);
        HostClass c = classes.computeIfAbsent(key, HostClass::new);
        // larger than every earlier host's, so a class's earliest host changes only when it is new
        putMember(new Member(c, nextSeq++, new Packing.Host(job, gpus)));
        return true;
    }

    private void putMember(Member m) {
        HostClass c = m.hostClass();
        classes.putIfAbsent(c.key, c);
        Member first = c.hosts.isEmpty() ? null : c.hosts.first();
        if (first == null || m.seq() < first.seq()) {
            if (first != null) firstHosts.remove(first);
            firstHosts.add(m);
        }
        c.hosts.add(m);
        members.put(m.host().job().id(), m);
    }

    private Member removeMember(String jobId) {
        Member m = members.remove(jobId);
        if (m == null) return null;
        HostClass c = m.hostClass;
        boolean wasFirst = c.hosts.first().seq() == m.seq();
        c.hosts.remove(m);
        if (!wasFirst) return m;
        firstHosts.remove(m);
        if (c.hosts.isEmpty()) classes.remove(c.key);
        else firstHosts.add(c.hosts.first());
        return m;
    }

    private boolean estimatesUnchanged(SchedulerSnapshot s) {
        return s.memoryEstimates().size() == estimatesSize && estimatesSum(s) == estimatesSum;
    }

    private void recordEstimates(SchedulerSnapshot s) {
        estimatesSize = s.memoryEstimates().size();
        estimatesSum = estimatesSum(s);
    }

    private static long estimatesSum(SchedulerSnapshot s) {
        long sum = 0;
        for (long v : s.memoryEstimates().values()) sum += v;
        return sum;
    }

    /**
     * The earliest host of every class {@code job} may join, in scan order: no {@link Pairing#conflict} (same gang
     * size, memory fits by the snapshot's memory rule, never a pair that crashed with out-of-memory). The list is valid until the next call: a rule judges it and keeps at most a host.
     */
    List<Packing.Host> candidatesFor(Job job) {
        long need = snapshot.memoryRule().charged(snapshot.memoryNeed(job));
        List<Packing.Host> out = candidates;
        out.clear();
        for (Member earliest : firstHosts) {
            HostClass c = earliest.hostClass();
            if (c.key.gpus() != job.gpus()) continue; // the class's key says so without its host
            Packing.Host first = earliest.host();
            if (Pairing.conflict(snapshot, job, need, first.job(), c.key.memoryCharged(), c.key.capacity()) != null) continue;
            out.add(first);
        }
        return out;
    }
}
