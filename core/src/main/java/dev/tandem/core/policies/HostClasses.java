package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Pairing;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The running jobs a queued job may join, grouped into classes of interchangeable hosts, for one round of a
 * packing policy. Every packing rule judges a host only by its workload signature, its gang size and the memory
 * it is charged, so hosts that agree on those (and on their GPUs' capacity) are one class: a queued job is checked
 * against each class once instead of against every lone job on the cluster, and the oracle is asked once per
 * class. Built once per round from the view's lone tenants and kept up to date as the round places jobs.
 *
 * <p>Order is kept exactly as a full scan would see it: each host has a sequence number (the view's lone tenants
 * in order, then the round's placements), {@link #candidatesFor} lists each class's earliest host in that order, so
 * a rule that takes the first best host picks the same host as it would from the full list.
 */
final class HostClasses {
    private record Key(int gpus, WorkloadSignature signature, long memoryCharged, long capacity) {}

    private static final class HostClass {
        final Key key;
        final TreeMap<Long, Packing.Host> hosts = new TreeMap<>();

        HostClass(Key key) { this.key = key; }
    }

    private record Member(HostClass hostClass, long seq) {}

    private final SchedulerSnapshot snapshot;
    private final ClusterView view;
    private final Map<Key, HostClass> classes = new HashMap<>();
    private final Map<String, Member> members = new HashMap<>();
    /** Classes by the sequence number of their earliest host: the order a full scan would meet them in. */
    private final TreeMap<Long, HostClass> byFirstHost = new TreeMap<>();
    private long nextSeq;
    /** What {@link #candidatesFor} hands out: one list per round, refilled on each call (a queued job at a time). */
    private final List<Packing.Host> candidates = new ArrayList<>();

    HostClasses(SchedulerSnapshot snapshot, ClusterView view) {
        this.snapshot = snapshot;
        this.view = view;
        for (Job r : view.soleTenants()) add(r, view.gpusOf(r.id()));
    }

    /** A job now alone on {@code gpus} (placed this round on idle GPUs) becomes a host. */
    void add(Job job, List<Integer> gpus) {
        if (snapshot.runsAlone(job) != null) return; // it takes no partner (and is no member, so remove() ignores it)
        long capacity = Long.MAX_VALUE;
        for (int g : gpus) capacity = Math.min(capacity, view.capacity(g));
        Key key = new Key(job.gpus(), job.signature(), snapshot.memoryRule().charged(snapshot.memoryNeed(job)), capacity);
        HostClass c = classes.computeIfAbsent(key, HostClass::new);
        long seq = nextSeq++; // larger than every earlier host's, so a class's earliest host changes only when it is new
        if (c.hosts.isEmpty()) byFirstHost.put(seq, c);
        c.hosts.put(seq, new Packing.Host(job, gpus));
        members.put(job.id(), new Member(c, seq));
    }

    /** A host that was joined (or left) is no longer alone. */
    void remove(String jobId) {
        Member m = members.remove(jobId);
        if (m == null) return;
        HostClass c = m.hostClass;
        boolean wasFirst = c.hosts.firstKey() == m.seq;
        c.hosts.remove(m.seq);
        if (!wasFirst) return;
        byFirstHost.remove(m.seq);
        if (c.hosts.isEmpty()) classes.remove(c.key);
        else byFirstHost.put(c.hosts.firstKey(), c);
    }

    /**
     * The earliest host of every class {@code job} may join, in scan order: no {@link Pairing#conflict} (same gang
     * size, memory fits by the snapshot's memory rule, never a pair that crashed with out-of-memory). The list is valid until the next call: a rule judges it and keeps at most a host.
     */
    List<Packing.Host> candidatesFor(Job job) {
        long need = snapshot.memoryRule().charged(snapshot.memoryNeed(job));
        List<Packing.Host> out = candidates;
        out.clear();
        for (HostClass c : byFirstHost.values()) {
            if (c.key.gpus() != job.gpus()) continue; // the class's key says so without its host
            Packing.Host first = c.hosts.firstEntry().getValue();
            if (Pairing.conflict(snapshot, job, need, first.job(), c.key.memoryCharged(), c.key.capacity()) != null) continue;
            out.add(first);
        }
        return out;
    }
}
