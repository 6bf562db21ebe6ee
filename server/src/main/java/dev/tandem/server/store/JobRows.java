package dev.tandem.server.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A job's row after a write, worked out in memory: the store keeps its unfinished jobs in memory and validates every
 * write against them, so it does not read a row back from the database after writing it. Each method does to a
 * {@link JobRecord} exactly what the store's SQL does to the row (a {@link Change}'s {@code SET}, {@code +} and
 * {@code COALESCE}, a NaN speed stored as NULL); {@code StoreTest} checks the two against each other by reopening the
 * store from its database after a long run of writes.
 */
final class JobRows {
    private JobRows() {}

    /** A new job as {@code Store.insertJob} inserts it: pending, submitted and queued at {@code now}. */
    static JobRecord inserted(long id, NewJob j, JobControls controls, String owner, long now) {
        return new JobRecord(id, owner, j.name(), j.argv(), j.env(), j.workdir(), j.gpus(), j.memoryMiB(), j.iterations(), j.signature(),
                JobState.PENDING, 0, false, List.of(), null, null, null, null, 0, null, null, now, now, null, null, now,
                "submitted", j.timeLimitMs(), controls, List.of(), null, j.limits(), j.output());
    }

    /** {@code r} moved to {@code state} for {@code reason} at {@code now}, with {@code change}'s columns applied in order. */
    static JobRecord changed(JobRecord r, JobState state, String reason, long now, Change change) {
        int attempts = r.attempts();
        boolean exclusive = r.exclusive();
        List<Integer> gpuIds = r.gpuIds();
        Long pid = r.pid(), pidStarted = r.pidStarted(), progressIter = r.progressIter(), startedAt = r.startedAt(),
                firstStartedAt = r.firstStartedAt(), finishedAt = r.finishedAt();
        Integer exitCode = r.exitCode();
        long attainedGpuMs = r.attainedGpuMs(), queuedAt = r.queuedAt();
        Double predictedSpeed = r.predictedSpeed(), observedSpeed = r.observedSpeed();
        for (Change.Item it : change.items) {
            Object v = it.value();
            if (it.mode() == Change.Mode.ADD) {
                long delta = ((Number) v).longValue();
                switch (it.column()) {
                    case ATTEMPTS -> attempts = Math.toIntExact(attempts + delta);
                    case ATTAINED_GPU_MS -> attainedGpuMs += delta;
                    default -> throw new IllegalArgumentException("cannot add to " + it.column());
                }
                continue;
            }
            boolean ifNull = it.mode() == Change.Mode.SET_IF_NULL; // only on nullable columns (Change refuses the others)
            switch (it.column()) {
                case ATTEMPTS -> attempts = Math.toIntExact(notNull(it).longValue());
                case EXCLUSIVE -> exclusive = switch (v) {
                    case Boolean b -> b;
                    case Number n -> n.intValue() != 0;
                    default -> throw new IllegalArgumentException("exclusive: not a boolean: " + v);
                };
                case GPU_IDS -> gpuIds = gpuIds((String) v);
                case PID -> pid = ifNull && pid != null ? pid : asLong(v);
                case PID_STARTED -> pidStarted = ifNull && pidStarted != null ? pidStarted : asLong(v);
                case EXIT_CODE -> exitCode = ifNull && exitCode != null ? exitCode : v == null ? null : ((Number) v).intValue();
                case PROGRESS_ITER -> progressIter = ifNull && progressIter != null ? progressIter : asLong(v);
                case ATTAINED_GPU_MS -> attainedGpuMs = notNull(it).longValue();
                case PREDICTED_SPEED -> predictedSpeed = ifNull && predictedSpeed != null ? predictedSpeed : asDouble(v);
                case OBSERVED_SPEED -> observedSpeed = ifNull && observedSpeed != null ? observedSpeed : asDouble(v);
                case QUEUED_AT -> queuedAt = notNull(it).longValue();
                case STARTED_AT -> startedAt = ifNull && startedAt != null ? startedAt : asLong(v);
                case FIRST_STARTED_AT -> firstStartedAt = ifNull && firstStartedAt != null ? firstStartedAt : asLong(v);
                case FINISHED_AT -> finishedAt = ifNull && finishedAt != null ? finishedAt : asLong(v);
            }
        }
        return new JobRecord(r.id(), r.owner(), r.name(), r.argv(), r.env(), r.workdir(), r.gpus(), r.memoryMiB(), r.iterations(),
                r.signature(), state, attempts, exclusive, gpuIds, pid, pidStarted, exitCode, progressIter, attainedGpuMs, predictedSpeed,
                observedSpeed, r.submittedAt(), queuedAt, startedAt, finishedAt, now, reason, r.timeLimitMs(), r.controls(),
                r.partners(), firstStartedAt, r.limits(), r.output());
    }

    /** {@code r} held back or released at {@code now}. */
    static JobRecord held(JobRecord r, boolean held, long now) {
        JobControls c = r.controls();
        return with(r, now, new JobControls(c.priority(), c.dependsOn(), held, c.arrayJob(), c.arrayIndex()), r.partners());
    }

    /** {@code r} with {@code partner} last among its partners (the row's update time unchanged, as the SQL leaves it). */
    static JobRecord withPartner(JobRecord r, long partner) {
        List<Long> partners = new ArrayList<>(r.partners());
        partners.add(partner);
        return with(r, r.updatedAt(), r.controls(), partners);
    }

    private static JobRecord with(JobRecord r, long updatedAt, JobControls controls, List<Long> partners) {
        return new JobRecord(r.id(), r.owner(), r.name(), r.argv(), r.env(), r.workdir(), r.gpus(), r.memoryMiB(), r.iterations(),
                r.signature(), r.state(), r.attempts(), r.exclusive(), r.gpuIds(), r.pid(), r.pidStarted(), r.exitCode(), r.progressIter(),
                r.attainedGpuMs(), r.predictedSpeed(), r.observedSpeed(), r.submittedAt(), r.queuedAt(), r.startedAt(), r.finishedAt(),
                updatedAt, r.reason(), r.timeLimitMs(), controls, partners, r.firstStartedAt(), r.limits(), r.output());
    }

    /** GPU indices as {@code Store.gpuIds} writes them (null or blank: none). */
    static List<Integer> gpuIds(String s) {
        return s == null || s.isBlank() ? List.of() : Arrays.stream(s.split(",")).map(String::trim).map(Integer::valueOf).toList();
    }

    private static Number notNull(Change.Item it) {
        if (it.value() == null) throw new IllegalArgumentException(it.column() + " cannot be null");
        return (Number) it.value();
    }

    private static Long asLong(Object v) {
        return v == null ? null : ((Number) v).longValue();
    }

    /** As stored: a NaN speed is NULL. */
    private static Double asDouble(Object v) {
        if (v == null) return null;
        double d = ((Number) v).doubleValue();
        return Double.isNaN(d) ? null : d;
    }
}
