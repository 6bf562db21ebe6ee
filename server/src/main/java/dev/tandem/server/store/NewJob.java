package dev.tandem.server.store;

import dev.tandem.core.model.WorkloadSignature;

import java.util.List;
import java.util.Map;

/** A validated submission, ready to be stored (one job; an array is stored as one of these per index). */
public record NewJob(String name, List<String> argv, Map<String, String> env, String workdir, int gpus, long memoryMiB,
                     Long iterations, WorkloadSignature signature, Long timeLimitMs, JobControls controls, RunLimits limits,
                     String output) {
    public NewJob {
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
        if (limits == null) limits = RunLimits.NONE;
    }

    /** A job without run limits. */
    public NewJob(String name, List<String> argv, Map<String, String> env, String workdir, int gpus, long memoryMiB,
                  Long iterations, WorkloadSignature signature, Long timeLimitMs, JobControls controls) {
        this(name, argv, env, workdir, gpus, memoryMiB, iterations, signature, timeLimitMs, controls, RunLimits.NONE, null);
    }
}
