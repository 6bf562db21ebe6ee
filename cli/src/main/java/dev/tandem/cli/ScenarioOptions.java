package dev.tandem.cli;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.model.Cluster;
import dev.tandem.data.DataSource;
import dev.tandem.server.DurationConverter;
import dev.tandem.server.PolicyOptions;
import dev.tandem.sim.engine.Knowledge;
import dev.tandem.sim.engine.QueueRules;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.scenario.ScenarioSpec;
import dev.tandem.sim.trace.BadRows;
import dev.tandem.sim.trace.TraceSpec;
import dev.tandem.sim.workload.ProfileMix;
import dev.tandem.sim.workload.WorkloadSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.Locale;

/** The options that describe data, workload shape, simulator and tandem tunables; shared by simulate and sweep. */
final class ScenarioOptions {
    @Option(names = "--profiles", defaultValue = DataSource.BUNDLED + "lucid/single_profiles.csv",
            description = "Solo profiles (Lucid single-profile CSV, or JSON). Default: ${DEFAULT-VALUE}.")
    String profiles;

    @Option(names = "--truth", defaultValue = DataSource.BUNDLED + "lucid/colocation_pairs.csv",
            description = {"Ground-truth co-location: Lucid pair CSV, or Gavel throughput JSON (jobs are then drawn from Gavel's job types).",
                    "Default: ${DEFAULT-VALUE}. Bundled Gavel data: " + DataSource.BUNDLED + "gavel/simulation_throughputs.json"})
    String truth;

    @Option(names = "--train", description = "Pairs the policies' compatibility model learns from (Lucid CSV or Gavel JSON). Default: the --truth file.")
    String train;

    @Option(names = "--train-without", split = ",", paramLabel = "MODEL",
            description = "Models whose pairs the compatibility model may not learn from (the truth keeps them): it must predict them from their solo profiles.")
    java.util.Set<String> trainWithout = new java.util.TreeSet<>();

    @Option(names = "--gavel-gpu", description = "GPU type to read from a Gavel file (k80, p100, v100). Default: the --cluster's GPU type where it is one of these (4x8:K80-12GB: k80), else v100.")
    String gavelGpu;

    @Option(names = "--mix", defaultValue = "measured",
            description = {"Profiles jobs are drawn from: measured (only workloads with measured pairs in --truth, so every co-located",
                    "speed is a measurement) or all (also the rest, priced by the fallback contention model). Default: ${DEFAULT-VALUE}."})
    String mix;

    @Option(names = "--sizes", defaultValue = "1:0.7,2:0.1,4:0.15,8:0.05", description = "Gang-size mix SIZE:WEIGHT,... Default: ${DEFAULT-VALUE} (Philly-like).")
    String sizes;

    @Option(names = "--duration-min", defaultValue = "30m", converter = DurationConverter.Seconds.class, description = "Shortest solo duration. Default: ${DEFAULT-VALUE}.")
    double durationMin;

    @Option(names = "--duration-max", defaultValue = "16h", converter = DurationConverter.Seconds.class, description = "Longest solo duration (log-uniform between). Default: ${DEFAULT-VALUE}.")
    double durationMax;

    @Option(names = "--trace", description = "Replay a real trace instead of generating jobs (see --trace-format).")
    String trace;

    @Option(names = "--trace-format", defaultValue = "alibaba",
            description = "alibaba (pod list), philly (cluster_job_log JSON), helios (cluster_log.csv), gavel (.trace), pollux (philly_jobs.csv), muri, sacct (your Slurm history: sacct -P or sacct --json; see the README), tandem (as --workload). Default: ${DEFAULT-VALUE}.")
    String traceFormat;

    @Option(names = "--workload", paramLabel = "FILE",
            description = {"Replay exactly these jobs: CSV id,user,submit_s,gpus,model,dataset,batchsize,amp and iterations or duration_s",
                    "(what --export-workload writes). Each job's workload must have a profile."})
    String workloadFile;

    @Option(names = "--bad-rows", defaultValue = "reject", description = "reject (stop at the first bad trace row) or skip (count and go on). Default: ${DEFAULT-VALUE}.")
    String badRows;

    @Option(names = "--mapping", description = "CSV pattern,model,dataset,batchsize,amp assigning profiles to trace jobs (others: seeded random).")
    String mapping;

    @Option(names = "--trace-limit", defaultValue = "0", description = "Replay only the first N trace jobs (0: all).")
    long traceLimit;

    @Option(names = "--round", defaultValue = "300s", converter = DurationConverter.Seconds.class, description = "Scheduling round length besides events (0: events only). Default: ${DEFAULT-VALUE}.")
    double round;

    @Option(names = "--restart-overhead", defaultValue = "30s", converter = DurationConverter.Seconds.class, description = "Work repeated when a job resumes after suspend or crash. Default: ${DEFAULT-VALUE}.")
    double restartOverhead;

    @Option(names = "--knowledge", defaultValue = "exact",
            description = "What every policy knows about job length: exact, noisy:SIGMA (each job's length seen through a fixed "
                    + "log-normal error, e.g. noisy:1) or none. A job of unknown length (none, or one that outran its noisy "
                    + "estimate) is shown as needing as long as it has run, at least 10 minutes, as the daemon shows a job "
                    + "submitted without --iterations. Default: ${DEFAULT-VALUE}.")
    String knowledge;

    @Option(names = "--fair-share",
            description = {"Hand the policy the queue as `tandem serve` does: higher priority first, then fair share between users",
                    "(a user's job ranks by the GPUs the user would hold once it runs), then submission. Default: submission order",
                    "alone, as trace replays and the peers' own simulators have it."})
    boolean fairShare;

    @Option(names = "--max-gpus-per-user", defaultValue = "0", paramLabel = "N",
            description = "With --fair-share: GPUs one user's jobs may hold at once, as serve's option of that name (0: no limit). Default: ${DEFAULT-VALUE}.")
    int maxGpusPerUser;

    @Option(names = "--gangs-on-one-node",
            description = {"Keep every job's GPUs on one node, as `tandem serve` places them (its executors start a job on one node).",
                    "Default: a simulated gang may span nodes, as the gangs of trace replays wider than a node must."})
    boolean gangsOnOneNode;

    @Mixin PolicyOptions policy;

    ScenarioSpec spec(Cluster cluster, int jobs, String arrival, long seed) {
        SimConfig sim = SimConfig.defaults().withRound(round).withRestartOverhead(restartOverhead).withMemoryRule(new MemoryRule(policy.memoryMarginMiB()))
                .withKnowledge(Knowledge.parse(knowledge), seed).withQueueRules(queueRules());
        WorkloadSpec workload = WorkloadSpec.of(jobs, arrival, sizes, durationMin, durationMax, seed).withMix(ProfileMix.parse(mix));
        TraceSpec traceSpec = trace == null ? null : new TraceSpec(traceFormat, trace, badRows(), mapping, traceLimit);
        if (workloadFile != null) {
            if (trace != null) throw new IllegalArgumentException("give either --workload or --trace, not both");
            if (mapping != null) throw new IllegalArgumentException("--mapping assigns profiles to trace jobs; a --workload file names each job's workload itself");
            traceSpec = new TraceSpec(TraceSpec.WORKLOAD_FILE, workloadFile, BadRows.REJECT, null, traceLimit);
        }
        if (gangsOnOneNode) cluster = cluster.withGangsOnOneNode();
        return new ScenarioSpec(profiles, truth, train == null ? truth : train, gavelGpu, policy.model(), policy.online(), cluster, workload, sim,
                policy.tandem(), traceSpec, trainWithout);
    }

    private QueueRules queueRules() {
        if (maxGpusPerUser < 0) throw new IllegalArgumentException("--max-gpus-per-user must not be negative, got " + maxGpusPerUser);
        if (maxGpusPerUser > 0 && !fairShare) throw new IllegalArgumentException("--max-gpus-per-user is one of serve's queue rules: give --fair-share with it");
        return fairShare ? QueueRules.daemon(maxGpusPerUser) : QueueRules.SUBMISSION;
    }

    private BadRows badRows() {
        return switch (badRows.toLowerCase(Locale.ROOT)) {
            case "reject" -> BadRows.REJECT;
            case "skip" -> BadRows.SKIP;
            default -> throw new IllegalArgumentException("--bad-rows must be reject or skip, got '" + badRows + "'");
        };
    }
}
