package dev.tandem.core.policy;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.Job;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A policy's scratch copy of GPU occupancy while it builds one round of decisions, so that a later decision
 * in the round sees the GPUs taken or freed by earlier ones. It is an overlay: the world's
 * {@link Occupancy} plus this round's changes, so creating one costs O(1), finding a node for a job looks at the
 * world's buckets of nodes by idle GPUs plus the nodes this round touched (a full scan of the nodes only for a gang
 * wider than any node's idle GPUs), and nothing scans every GPU or running job.
 */
public final class ClusterView {
    private final SchedulerSnapshot snapshot;
    private final Occupancy base;
    private final Cluster cluster;
    private final Map<Integer, List<Job>> added = new HashMap<>();
    /**
     * The GPUs {@link #added} holds a list for, so that a look-up of any other GPU boxes no number: a search asks about
     * every GPU it passes, and those boxes were a fifth of what srtf allocated per decision on 1,000 GPUs.
     */
    private java.util.BitSet placedOn;
    private final Map<String, Job> placedJobs = new LinkedHashMap<>();
    private final Map<String, List<Integer>> placedGpus = new HashMap<>();
    private final Set<String> removed = new HashSet<>();
    /**
     * GPUs a world's job that this round removed was on: only for these does a check look its occupants up in
     * {@link #removed} (a preemptive policy removes jobs and then starts others, and the look-ups for every GPU a search
     * passed were a twentieth of its replay). Made on the first removal, as bits: a preemptive policy's round removes a few
     * jobs, and an array of a flag per GPU, made and cleared at each of its hundreds of thousands of decisions on 2,000
     * GPUs, was a tenth of its run.
     */
    private java.util.BitSet lostATenant;
    /** GPUs held for a waiting gang this round ({@link #hold}). */
    private boolean[] held;
    /** The GPUs {@link #held} marks, in the order they were held (a gang's few). */
    private final List<Integer> heldGpus = new ArrayList<>(8);
    /**
     * Nodes whose idle count this round changed (the world's buckets no longer describe them), in the order first
     * changed, and by how much ({@link #touchedDelta}, at the same place). While they are few they are found by a scan of
     * this list; beyond {@link #SCANNED_NODES}, through {@link #idleDeltaByNode} and {@link #touchedByNode}, a slot per node. A view
     * is made at every decision, and those two arrays made for every view of a 250-node cluster were a sixteenth of
     * tiresias' run of 100,000 jobs, whose decisions touch a node or two.
     */
    private int[] touched = new int[0];
    private int[] touchedDelta = new int[0];
    private int touchedCount;
    /** Touched nodes found by a scan of {@link #touched}, up to this many. */
    private static final int SCANNED_NODES = 16;
    /** This round's change of idle GPUs per node, and which nodes it changed: made once more than {@link #SCANNED_NODES} were. */
    private int[] idleDeltaByNode;
    private boolean[] touchedByNode;
    private int idleTotal;
    /** A placement of this round joined a job on its GPU ({@link #placedBesideAJob}). */
    private boolean placedBesideAJob;
    /** Counts the changes: place, remove, hold, release ({@link #version}). */
    private long version;

    public ClusterView(SchedulerSnapshot snapshot) {
        this.snapshot = snapshot;
        this.base = snapshot.occupancy();
        this.cluster = snapshot.cluster();
        this.idleTotal = base.idleTotal();
    }

    public void place(Job job, List<Integer> gpus) {
        version++;
        for (int g : gpus) {
            if (!placedBesideAJob && occupantCount(g) > (held(g) ? 1 : 0)) placedBesideAJob = true;
            if (idle(g)) changeIdle(g, -1);
            added.computeIfAbsent(g, x -> new ArrayList<>(2)).add(job);
            if (placedOn == null) placedOn = new java.util.BitSet();
            placedOn.set(g);
        }
        placedJobs.put(job.id(), job);
        placedGpus.put(job.id(), List.copyOf(gpus));
        if (!removed.isEmpty()) removed.remove(job.id());
    }

    public void remove(String jobId) {
        version++;
        List<Integer> gpus = gpusOf(jobId);
        if (gpus.isEmpty()) return;
        if (placedJobs.remove(jobId) != null) {
            placedGpus.remove(jobId);
            for (int g : gpus) added.get(g).removeIf(j -> j.id().equals(jobId));
        } else {
            removed.add(jobId);
            if (lostATenant == null) lostATenant = new java.util.BitSet();
            for (int g : gpus) lostATenant.set(g);
        }
        for (int g : gpus) if (idle(g)) changeIdle(g, +1);
    }

    private void changeIdle(int gpu, int by) {
        int node = cluster.nodeIndexOf(gpu);
        idleTotal += by;
        if (idleDeltaByNode != null) {
            idleDeltaByNode[node] += by;
            if (!touchedByNode[node]) {
                touchedByNode[node] = true;
                append(node, 0);
            }
            return;
        }
        int at = touchedAt(node);
        if (at >= 0) {
            touchedDelta[at] += by;
            return;
        }
        append(node, by);
        if (touchedCount > SCANNED_NODES) {
            idleDeltaByNode = new int[cluster.nodes().size()];
            touchedByNode = new boolean[idleDeltaByNode.length];
            for (int k = 0; k < touchedCount; k++) {
                idleDeltaByNode[touched[k]] = touchedDelta[k];
                touchedByNode[touched[k]] = true;
            }
        }
    }

    /** Adds a node to {@link #touched} (its change in {@link #touchedDelta} counts only while no per-node arrays are made). */
    private void append(int node, int delta) {
        if (touchedCount == touched.length) {
            touched = java.util.Arrays.copyOf(touched, Math.max(8, 2 * touchedCount));
            touchedDelta = java.util.Arrays.copyOf(touchedDelta, touched.length);
        }
        touched[touchedCount] = node;
        touchedDelta[touchedCount++] = delta;
    }

    /** The node's place in {@link #touched}, or -1 (a scan: only while no per-node arrays are made). */
    private int touchedAt(int node) {
        for (int k = 0; k < touchedCount; k++) if (touched[k] == node) return k;
        return -1;
    }

    /** Whether this round changed the node's idle count. */
    private boolean isTouched(int node) {
        return touchedByNode != null ? touchedByNode[node] : touchedAt(node) >= 0;
    }

    /** This round's change of the node's idle count. */
    private int idleDelta(int node) {
        if (idleDeltaByNode != null) return idleDeltaByNode[node];
        int k = touchedAt(node);
        return k < 0 ? 0 : touchedDelta[k];
    }

    /**
     * Holds GPUs for a waiting gang for the rest of the round, or until {@link #release}: none of them is idle, a job on
     * one is no lone tenant (it takes no partner), and each counts one occupant more than the jobs on it
     * ({@link #occupantCount}), so that no other placement of the round takes them.
     */
    public void hold(List<Integer> gpus) {
        version++;
        for (int g : gpus) {
            boolean wasIdle = idle(g);
            if (held == null) held = new boolean[cluster.gpuCount()];
            if (held[g]) continue;
            held[g] = true;
            heldGpus.add(g);
            if (wasIdle) changeIdle(g, -1);
        }
    }

    /** Ends a hold of {@link #hold}. */
    public void release(List<Integer> gpus) {
        version++;
        for (int g : gpus) {
            if (!held(g)) continue;
            held[g] = false;
            heldGpus.remove(Integer.valueOf(g));
            if (idle(g)) changeIdle(g, +1);
        }
    }

    /** Whether the GPU is held for a waiting gang this round. */
    public boolean held(int gpu) { return !heldGpus.isEmpty() && held[gpu]; }

    /** Grows with every change to the view: what a caller derived from it holds while this stays the same. */
    public long version() { return version; }

    /** Whether this round has placed, removed or held nothing yet: the world's occupancy holds everywhere. */
    public boolean untouched() {
        return placedJobs.isEmpty() && removed.isEmpty() && added.isEmpty() && heldGpus.isEmpty();
    }

    /** The jobs on a GPU as this round stands. */
    public List<Job> occupants(int gpu) {
        List<String> ids = base.jobsOn(gpu);
        List<Job> extra = addedOn(gpu);
        if (extra.isEmpty() && !mayHaveLost(gpu)) {
            if (ids.isEmpty()) return List.of();
            List<Job> out = new ArrayList<>(ids.size());
            for (String id : ids) out.add(base.jobOf(id).orElseThrow());
            return out;
        }
        List<Job> out = new ArrayList<>(ids.size() + extra.size());
        for (String id : ids) if (!removed.contains(id)) out.add(base.jobOf(id).orElseThrow());
        out.addAll(extra);
        return out;
    }

    /** How many jobs are on a GPU as this round stands (without listing them), a hold counting as one. */
    public int occupantCount(int gpu) {
        int n = addedOn(gpu).size() + (held(gpu) ? 1 : 0);
        if (!mayHaveLost(gpu)) return n + base.countOn(gpu);
        List<String> ids = base.jobsOn(gpu);
        for (int i = 0; i < ids.size(); i++) if (!removed.contains(ids.get(i))) n++;
        return n;
    }

    /** Jobs this round placed on a GPU (most views place few or none: no look-up then). */
    private List<Job> addedOn(int gpu) {
        return placedOn == null || !placedOn.get(gpu) ? List.of() : added.get(gpu); // a GPU placed on keeps its list
    }

    /** Whether this round has placed, removed or held any job on a GPU: if not, the world's view of it holds. */
    public boolean unchanged(int gpu) {
        if (!addedOn(gpu).isEmpty() || held(gpu)) return false;
        return !mayHaveLost(gpu) || !anyRemoved(base.jobsOn(gpu));
    }

    private boolean idle(int gpu) {
        if (!base.usable(gpu) || held(gpu) || !addedOn(gpu).isEmpty()) return false;
        return base.countOn(gpu) == 0 || (mayHaveLost(gpu) && allRemoved(base.jobsOn(gpu)));
    }

    /** Whether a job this round removed was on the GPU (false: none of its world's occupants is removed). */
    private boolean mayHaveLost(int gpu) { return lostATenant != null && lostATenant.get(gpu); }

    // indexed, not iterated: called for every GPU a round places on or frees, an iterator per call was the largest
    // allocation of a preemptive policy's replay

    /** Whether this round removed any of the jobs {@code ids}. */
    private boolean anyRemoved(List<String> ids) {
        for (int i = 0; i < ids.size(); i++) if (removed.contains(ids.get(i))) return true;
        return false;
    }

    /** Whether this round removed all of the jobs {@code ids}. */
    private boolean allRemoved(List<String> ids) {
        for (int i = 0; i < ids.size(); i++) if (!removed.contains(ids.get(i))) return false;
        return true;
    }

    public List<Integer> gpusOf(String jobId) {
        List<Integer> p = placedGpus.get(jobId);
        if (p != null) return p;
        if (removed.contains(jobId)) return List.of();
        return base.gpusOf(jobId);
    }

    /**
     * Whether this round placed the job (a waiting job has GPUs in the view only then). No look-up in a round that has
     * placed nothing, as most rounds of a full cluster: policies ask it for every waiting job.
     */
    public boolean placedThisRound(String jobId) { return !placedGpus.isEmpty() && placedGpus.containsKey(jobId); }

    public int freeCount() { return idleTotal; }

    /** Whether this round placed a job on a GPU that held another: a pair the world does not know of yet. */
    public boolean placedBesideAJob() { return placedBesideAJob; }

    private int idleOnNode(int node) { return base.idleOnNode(node) + (touchedCount == 0 ? 0 : idleDelta(node)); }

    /** Idle GPUs for {@code job}: as many as its gang needs, each with enough memory for it alone. */
    public Optional<List<Integer>> findIdle(Job job) {
        return findIdle(job.gpus(), snapshot.memoryNeed(job));
    }

    /** As {@link #findIdle(Job)} for any GPUs, whatever their memory. */
    public Optional<List<Integer>> findIdle(int n) {
        return findIdle(n, 0);
    }

    /**
     * Picks {@code n} idle GPUs with at least {@code memoryMiB} each, preferring one node (the fullest node
     * that still has room, to keep big holes for big jobs), and spreading over the nodes with most idle GPUs
     * only when no node has enough and the cluster lets gangs span nodes. Nodes are assumed to hold one GPU type (checked per GPU when collecting).
     */
    public Optional<List<Integer>> findIdle(int n, long memoryMiB) {
        if (idleTotal < n || n < 1) return Optional.empty();
        List<Integer> pick = new ArrayList<>(n);
        int best = fullestNodeWithRoom(n, memoryMiB);
        if (best >= 0) {
            collectIdle(best, n, memoryMiB, pick);
            if (pick.size() == n) return Optional.of(List.copyOf(pick));
            pick.clear();
        }
        if (!cluster.gangsSpanNodes()) return Optional.empty();
        // no single node can take it: spread over the nodes with most idle GPUs (lowest index among equals), if those
        // with room have enough together
        if (memoryMiB > cluster.minGpuMemoryMiB()) {
            int eligibleIdle = 0;
            for (int i = 0; i < cluster.nodes().size(); i++) {
                int idle = idleOnNode(i);
                if (idle > 0 && roomFor(i, memoryMiB)) eligibleIdle += idle;
            }
            if (eligibleIdle < n) return Optional.empty();
        }
        // the world's buckets give the untouched nodes by idle count in index order; the few nodes this round touched
        // are merged in by their current count
        int[] touchedByIndex = java.util.Arrays.copyOf(touched, touchedCount);
        java.util.Arrays.sort(touchedByIndex);
        for (int c = cluster.maxGpusPerNode(); c >= 1 && pick.size() < n; c--) {
            int fromBucket = nextUntouched(c, 0), t = 0;
            while (pick.size() < n) {
                while (t < touchedByIndex.length && idleOnNode(touchedByIndex[t]) != c) t++;
                int fromTouched = t < touchedByIndex.length ? touchedByIndex[t] : Integer.MAX_VALUE;
                int node = Math.min(fromBucket, fromTouched);
                if (node == Integer.MAX_VALUE) break;
                if (node == fromBucket) fromBucket = nextUntouched(c, node + 1);
                else t++;
                if (roomFor(node, memoryMiB)) collectIdle(node, n, memoryMiB, pick);
            }
        }
        return pick.size() == n ? Optional.of(List.copyOf(pick)) : Optional.empty();
    }

    /** The first node at or after {@code from} that the world counts {@code idle} idle GPUs on and this round has not touched, or MAX_VALUE. */
    private int nextUntouched(int idle, int from) {
        for (int node = base.nodeWithIdle(idle, from); node >= 0; node = base.nodeWithIdle(idle, node + 1)) {
            if (touchedCount == 0 || !isTouched(node)) return node;
        }
        return Integer.MAX_VALUE;
    }

    /**
     * The node with the fewest idle GPUs that still has {@code n} with room for {@code memoryMiB}, the lowest index
     * among equals; -1 if none. Untouched nodes come from the world's buckets (smallest sufficient count first), the
     * few nodes this round changed are judged by their current count.
     */
    private int fullestNodeWithRoom(int n, long memoryMiB) {
        int best = -1, bestIdle = Integer.MAX_VALUE;
        search:
        for (int c = n; c <= cluster.maxGpusPerNode(); c++) {
            for (int node = base.nodeWithIdle(c, 0); node >= 0; node = base.nodeWithIdle(c, node + 1)) {
                if ((touchedCount > 0 && isTouched(node)) || !roomFor(node, memoryMiB)) continue;
                best = node;
                bestIdle = c;
                break search;
            }
        }
        for (int k = 0; k < touchedCount; k++) {
            int node = touched[k];
            int idle = idleOnNode(node);
            if (idle < n || !roomFor(node, memoryMiB)) continue;
            if (idle < bestIdle || (idle == bestIdle && node < best)) {
                best = node;
                bestIdle = idle;
            }
        }
        return best;
    }

    private boolean roomFor(int node, long memoryMiB) {
        return memoryMiB <= 0 || cluster.nodes().get(node).gpus().get(0).type().memoryMiB() >= memoryMiB;
    }

    private void collectIdle(int node, int n, long memoryMiB, List<Integer> into) {
        for (Gpu g : cluster.nodes().get(node).gpus()) {
            if (into.size() == n) return;
            if (idle(g.id()) && g.type().memoryMiB() >= memoryMiB) into.add(g.id());
        }
    }

    /** Device memory on a GPU the policy should count as taken, including each job's margin. */
    public long memoryCharged(int gpu) {
        long s = 0; // the occupants, without listing them: asked for every start's reason and every fit
        boolean lost = mayHaveLost(gpu);
        // indexed: asked for the reason of every packed start, where an iterator per list was 7% of gandiva's bytes per decision
        List<String> ids = base.jobsOn(gpu);
        for (int i = 0; i < ids.size(); i++) if (!lost || !removed.contains(ids.get(i))) s += charged(base.jobOf(ids.get(i)).orElseThrow());
        List<Job> placedHere = addedOn(gpu);
        for (int i = 0; i < placedHere.size(); i++) s += charged(placedHere.get(i));
        return s;
    }

    private long charged(Job j) { return snapshot.memoryRule().charged(snapshot.memoryNeed(j)); }

    public long capacity(int gpu) { return cluster.gpu(gpu).type().memoryMiB(); }

    /** Whether {@code job} fits next to the current occupants of every GPU in {@code gpus}. */
    public boolean memoryFits(Job job, List<Integer> gpus) {
        long need = snapshot.memoryRule().charged(snapshot.memoryNeed(job));
        for (int g : gpus) if (memoryCharged(g) + need > capacity(g)) return false;
        return true;
    }

    /**
     * If the job runs alone on exactly its GPUs (no other job on any of them), returns them; used to find
     * partners for co-location where a gang may only share with a gang of the same size on the same GPUs.
     */
    public Optional<List<Integer>> soleTenancy(String jobId) {
        List<Integer> gpus = gpusOf(jobId);
        if (gpus.isEmpty()) return Optional.empty();
        for (int g : gpus) if (held(g) || occupants(g).size() != 1 || !base.usable(g)) return Optional.empty();
        return Optional.of(gpus);
    }

    /** Jobs alone on their GPUs as this round stands: the world's lone jobs still alone, plus this round's placements. */
    public List<Job> soleTenants() {
        List<Job> out = new ArrayList<>();
        // the world's lone jobs are alone on usable GPUs: one stays alone unless this round took it off, moved it (then
        // it is among the placed jobs), or placed a job on or held one of its GPUs. Asked that way, not by a look at
        // each lone job's GPUs, which was half of tandem's time on 20,000 GPUs (most rounds place a few jobs or hold a
        // gang's GPUs, and thousands of jobs run alone)
        Set<String> notAlone = jobsOnGpusThisRoundChanged();
        for (Job r : base.soleTenantJobs()) {
            if ((notAlone.isEmpty() || !notAlone.contains(r.id())) && (removed.isEmpty() || !removed.contains(r.id()))
                    && (placedJobs.isEmpty() || !placedJobs.containsKey(r.id()))) out.add(r);
        }
        for (Job j : placedJobs.values()) if (soleTenancy(j.id()).isPresent()) out.add(j);
        return out;
    }

    /** The world's jobs on GPUs this round placed a job on or held. */
    private Set<String> jobsOnGpusThisRoundChanged() {
        if (heldGpus.isEmpty() && added.isEmpty()) return Set.of();
        Set<String> ids = new HashSet<>();
        for (int g : heldGpus) ids.addAll(base.jobsOn(g));
        for (Map.Entry<Integer, List<Job>> e : added.entrySet()) if (!e.getValue().isEmpty()) ids.addAll(base.jobsOn(e.getKey()));
        return ids;
    }
}
