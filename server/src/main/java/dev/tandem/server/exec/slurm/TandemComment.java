package dev.tandem.server.exec.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What tandem writes into each of its Slurm jobs' comment: {@code tandem:JOB:ATTEMPT:INSTANCE:GPUS}. The job, attempt and
 * daemon ({@code INSTANCE}, kept in the state directory) name the run, so a restarted daemon finds its runs; the GPUs
 * (node-local indices on the job's node, comma-separated) let another tandem daemon scheduling the same nodes see them
 * as taken: tandem asks Slurm for no gpu GRES, so nothing else in Slurm says which GPU a run uses. Comments written
 * before the GPUs were added end after {@code INSTANCE}.
 *
 * @param gpus empty where the comment does not say
 */
record TandemComment(long jobId, int attempt, String instance, List<Integer> gpus) {
    private static final String PREFIX = "tandem:";

    TandemComment {
        gpus = List.copyOf(gpus);
    }

    String text() {
        return PREFIX + jobId + ":" + attempt + ":" + instance + ":" + gpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** Whether this comment names that run of that daemon. */
    boolean names(long job, int attemptNumber, String daemon) {
        return jobId == job && attempt == attemptNumber && instance.equals(daemon);
    }

    /** The comment of a tandem run, or empty for any other (another program's, or one this version cannot read). */
    static Optional<TandemComment> parse(String comment) {
        if (comment == null || !comment.startsWith(PREFIX)) return Optional.empty();
        String[] f = comment.substring(PREFIX.length()).split(":", -1);
        if (f.length < 3 || f.length > 4 || f[2].isEmpty()) return Optional.empty();
        try {
            List<Integer> gpus = new ArrayList<>();
            if (f.length == 4 && !f[3].isEmpty()) for (String g : f[3].split(",")) gpus.add(Integer.parseInt(g));
            return Optional.of(new TandemComment(Long.parseLong(f[0]), Integer.parseInt(f[1]), f[2], gpus));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
