package dev.tandem.server.sched;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.OnlineCorrectedModel;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.Node;
import dev.tandem.core.runtime.OutOfMemoryRule;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.runtime.DecisionDue;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.core.runtime.DecisionCarrier;
import dev.tandem.core.runtime.Placements;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.JobCannotRun;
import dev.tandem.server.exec.UnixAccount;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.gpu.GpuMonitor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.Store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the scheduler loop's parts share. Owned by the loop's thread: nothing here is touched from elsewhere.
 * The cluster is the executor's GPUs grouped by node (this machine, or Slurm's nodes), where a job's GPUs lie on
 * one node; its GPU ids are positions in the device list, which the store and the API translate to the devices'
 * indices.
 */
final class Context {
    static final String ACTOR = "scheduler";

    final Store store;
    final Executor executor;
    final List<GpuDevice> devices;
    final Cluster cluster;
    /** Who holds which GPUs: the runtime's ledger of live runs (a run stays placed until its process has ended). */
    final Placements<Long, Run> runs;
    /**
     * Carries out the policy's decisions on {@link #runs}, and keeps what stays between them: the GPUs held for waiting
     * gangs, the runs being stopped and the GPUs promised meanwhile.
     */
    final DecisionCarrier<Long, Run, SchedulerSnapshot> carrier;
    final Learned learned;
    final OnlineCorrectedModel oracle;
    final GpuMonitor monitor;
    final ServerMetrics metrics;
    final SchedulerConfig cfg;
    final MemoryRule memoryRule;
    /** The wall clock, or a virtual one the driver moves ({@link VirtualClock}). */
    final java.time.InstantSource clock;
    /** The cluster's seconds, which the policy reasons in ({@link PolicyTime}). */
    final PolicyTime time;
    /** What the scheduler did recently, and the series the dashboard draws (memory only). */
    final DecisionLog decisions = new DecisionLog();
    final Timeline timeline = new Timeline();
    /** GPUs held by another daemon or busy with processes that are not this daemon's. */
    final UnusableGpus unusable;
    /** When the policy is asked next: something changed since it was last asked, or time alone ({@link DecisionDue}). */
    final DecisionDue due;

    Context(Store store, Executor executor, List<GpuDevice> devices, OnlineCorrectedModel oracle, GpuMonitor monitor,
            ServerMetrics metrics, SchedulerConfig cfg, List<dev.tandem.core.model.JobProfile> knownProfiles, java.time.InstantSource clock,
            Policy policy) {
        this.clock = clock;
        this.time = new PolicyTime(executor.clusterSecondsPerSecond());
        this.store = store;
        this.executor = executor;
        this.devices = List.copyOf(devices);
        this.cluster = clusterOf(devices);
        this.due = new DecisionDue(policy, this.cluster);
        this.runs = new Placements<>(this.cluster, run -> run.jobId);
        this.carrier = new DecisionCarrier<>(runs);
        this.learned = new Learned(store, knownProfiles, executor.hardwareProfiles());
        this.oracle = oracle;
        this.monitor = monitor;
        this.unusable = new UnusableGpus(this.devices, this.runs, new ForeignProcesses(this.devices, monitor == null ? List::of : monitor::computeApps, executor::owns), executor);
        this.metrics = metrics;
        metrics.lengthEstimates(learned.lengths()); // as judged again from the store, until the next job succeeds
        this.cfg = cfg;
        this.memoryRule = new MemoryRule(cfg.memoryMarginMiB());
    }

    /** Devices of one node must be listed together (executors list them node by node). */
    static Cluster clusterOf(List<GpuDevice> devices) {
        Map<String, List<Gpu>> byNode = new LinkedHashMap<>();
        for (int i = 0; i < devices.size(); i++) {
            GpuDevice d = devices.get(i);
            List<Gpu> on = byNode.computeIfAbsent(d.node(), n -> new ArrayList<>());
            if (!on.isEmpty() && on.getLast().id() != i - 1) throw new IllegalArgumentException("GPUs of node " + d.node() + " are not listed together");
            on.add(new Gpu(i, d.node(), on.size(), new GpuType(d.name(), d.memoryMiB())));
        }
        List<Node> nodes = new ArrayList<>();
        byNode.forEach((name, gpus) -> nodes.add(new Node(name, gpus, 0, 0)));
        return new Cluster(nodes).withGangsOnOneNode();
    }

    long now() { return clock.millis(); }

    /** nvidia-smi indices of cluster GPU ids, as the store keeps them. */
    List<Integer> indices(List<Integer> clusterIds) {
        return clusterIds.stream().map(g -> devices.get(g).index()).toList();
    }

    /** Cluster GPU ids of stored nvidia-smi indices; null if a GPU is no longer there. */
    List<Integer> clusterIds(List<Integer> indices) {
        Map<Integer, Integer> byIndex = new java.util.HashMap<>();
        for (int i = 0; i < devices.size(); i++) byIndex.put(devices.get(i).index(), i);
        List<Integer> out = new ArrayList<>();
        for (int idx : indices) {
            Integer id = byIndex.get(idx);
            if (id == null) return null;
            out.add(id);
        }
        return out;
    }

    String describe(List<Integer> clusterIds) {
        return indices(clusterIds).stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    long capacity(List<Integer> clusterIds) {
        return clusterIds.stream().mapToLong(g -> devices.get(g).memoryMiB()).min().orElse(0);
    }

    /**
     * Why a stored job must not share a GPU ({@link dev.tandem.core.policy.SchedulerSnapshot#runsAlone}, honoured by every
     * policy and checked again by the placement rules), or null: it ran out of memory next to a partner, or its
     * workload is not profiled yet (it runs alone to be profiled).
     */
    String runsAlone(JobRecord r) {
        if (r.exclusive()) return OutOfMemoryRule.RUNS_ALONE;
        if (learned.profile(r.signature()).isEmpty()) return NOT_PROFILED;
        return null;
    }

    /** Why a job of a workload without a profile runs alone. */
    static final String NOT_PROFILED = "a new workload runs alone first to be profiled";

    /** The policy's view of a stored job. Its memory need is the larger of the declared and the profiled peak. */
    Job job(JobRecord r) {
        long profiled = learned.profile(r.signature()).filter(p -> p.hasMemory()).map(p -> (long) Math.ceil(p.gmemMiB())).orElse(0L);
        long memory = Math.max(r.memoryMiB(), profiled);
        double total = r.iterations() != null ? r.iterations() : 1.0;
        return new Job(String.valueOf(r.id()), r.owner(), time.seconds(r.submittedAt()), r.gpus(), r.signature(), total, memory, r.controls().priority());
    }

    /**
     * The Unix account a user's jobs run as: the one recorded with the user, looked up now (an account removed since
     * fails the start); null for the daemon's own (also users created before accounts were recorded), which needs no
     * lookup at each start.
     */
    UnixAccount accountOf(String owner) {
        String unixUser = store.user(owner).map(u -> u.unixUser()).orElse(null);
        if (UnixAccount.isDaemons(unixUser)) return null;
        return UnixAccount.lookup(unixUser).orElseThrow(() -> new JobCannotRun("the Unix account " + unixUser + " of user " + owner + " no longer exists"));
    }
}
