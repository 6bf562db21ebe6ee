package dev.tandem.core.model;

/**
 * A training job as submitted.
 *
 * @param gpus            gang size: the job needs this many GPUs at once
 * @param totalIterations work to do, in iterations (the job's solo duration is totalIterations / soloSpeed)
 * @param memoryMiB       device memory needed per GPU, MiB
 */
public record Job(String id, String user, double submitTime, int gpus, WorkloadSignature signature,
                  double totalIterations, long memoryMiB, int priority) {
    public Job {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("job id is empty");
        if (gpus < 1) throw new IllegalArgumentException("job " + id + ": needs at least one GPU, got " + gpus);
        if (!(totalIterations > 0)) throw new IllegalArgumentException("job " + id + ": total iterations must be positive, got " + totalIterations);
        if (submitTime < 0) throw new IllegalArgumentException("job " + id + ": submit time must not be negative");
        if (memoryMiB < 0) throw new IllegalArgumentException("job " + id + ": memory must not be negative");
    }

    /**
     * Whether this job came after {@code other}: submitted later, or at the same instant with the later id, ids
     * compared as numbers would be (shorter first, then by text), so that the daemon's 9 comes before its 10 as the
     * simulator's j009 before its j010 and both worlds break the tie alike.
     */
    public boolean submittedAfter(Job other) {
        if (submitTime != other.submitTime) return submitTime > other.submitTime;
        if (id.length() != other.id.length()) return id.length() > other.id.length();
        return id.compareTo(other.id) > 0;
    }
}
