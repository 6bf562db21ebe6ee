package dev.tandem.server.exec.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A job as {@code scontrol show job -o} lists it. {@code exitCode}/{@code signal} come from
 * {@code ExitCode=CODE:SIGNAL}; {@code state} is the base state (a suffix such as "+" is dropped).
 */
public record SlurmJob(long id, String name, String state, String reason, int exitCode, int signal, String comment, String nodeList) {
    /** States after which the job will never run again under this Slurm job id. */
    static final Set<String> FINAL = Set.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
            "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT");

    public boolean finished() { return FINAL.contains(state); }

    public static List<SlurmJob> parseAll(String text) {
        List<SlurmJob> jobs = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith("JobId=")) continue;
            jobs.add(parse(SlurmText.fields(line)));
        }
        return jobs;
    }

    static SlurmJob parse(Map<String, String> f) {
        String[] ec = f.getOrDefault("ExitCode", "0:0").split(":");
        String state = baseState(f.getOrDefault("JobState", "UNKNOWN"));
        return new SlurmJob(Long.parseLong(f.get("JobId")), f.getOrDefault("JobName", ""), state, f.getOrDefault("Reason", ""),
                intOr(ec[0], 0), ec.length > 1 ? intOr(ec[1], 0) : 0, nullToEmpty(f.get("Comment")), nullToEmpty(f.get("NodeList")));
    }

    /** A {@code JobState} without what Slurm appends to it ({@code CANCELLED by 0}, {@code RUNNING+...}). */
    static String baseState(String jobState) {
        return jobState.replaceAll("[^A-Z_].*$", "");
    }

    private static int intOr(String s, int dflt) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private static String nullToEmpty(String s) { return s == null || s.equals("(null)") ? "" : s; }

    /**
     * The exit status tandem's daemon should see, or null where the job did not end by itself (the node failed, it
     * was preempted): the daemon then counts a lost attempt and requeues it. Signals are reported the shell's way
     * (128 + signal), so a cancelled or killed job reads as 143 or 137, as under the local executor.
     */
    Integer tandemExitCode() {
        return switch (state) {
            case "COMPLETED" -> exitCode;
            case "FAILED", "SPECIAL_EXIT" -> exitCode != 0 ? exitCode : signal != 0 ? 128 + signal : 1;
            case "CANCELLED", "TIMEOUT", "DEADLINE" -> signal != 0 ? 128 + signal : exitCode != 0 ? exitCode : 143;
            case "OUT_OF_MEMORY" -> 137; // host memory (the cgroup's limit), not CUDA: killed, and not run again (the executor says why)
            default -> null; // NODE_FAIL, PREEMPTED, BOOT_FAIL, REVOKED
        };
    }
}
