package dev.tandem.server.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.server.sched.LiveState;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.JobEvent;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;

import java.time.Instant;
import java.util.List;

/** The API's JSON for jobs: the stored row, what the scheduler knows live, and (for one job) its history. */
final class JobJson {
    private final ObjectMapper json;

    JobJson(ObjectMapper json) {
        this.json = json;
    }

    /**
     * @param viewer who asks: the variables' values ({@code submit --env NAME}, the way to hand a job a secret) go to the
     *               job's owner only; anyone else allowed to see the job (an admin) gets their names, each value null
     */
    ObjectNode job(JobRecord r, LiveState.JobLive live, String viewer) {
        ObjectNode o = json.createObjectNode();
        o.put("id", r.id());
        o.put("name", r.name());
        o.put("owner", r.owner());
        o.put("state", r.state().dbName());
        ArrayNode argv = o.putArray("argv");
        r.argv().forEach(argv::add);
        ObjectNode env = o.putObject("env");
        boolean owner = r.owner().equals(viewer);
        r.env().forEach((name, value) -> {
            if (owner) env.put(name, value);
            else env.putNull(name);
        });
        o.put("workdir", r.workdir());
        o.put("gpus", r.gpus());
        o.put("memory_mib", r.memoryMiB());
        putNullable(o, "iterations", r.iterations());
        putNullable(o, "time_limit_s", r.timeLimitMs() == null ? null : r.timeLimitMs() / 1000.0);
        o.put("output", r.output());
        ObjectNode limits = o.putObject("limits");
        putNullable(limits, "host_memory_mib", r.limits().hostMemoryMiB());
        putNullable(limits, "processes", r.limits().processes() == null ? null : r.limits().processes().longValue());
        o.set("signature", signature(r.signature()));
        o.put("attempts", r.attempts());
        o.put("exclusive", r.exclusive());
        ArrayNode ids = o.putArray("gpu_ids");
        r.gpuIds().forEach(ids::add);
        putNullable(o, "pid", r.pid());
        if (r.exitCode() == null) o.putNull("exit_code");
        else o.put("exit_code", r.exitCode());
        o.put("submitted_at", time(r.submittedAt()));
        o.put("started_at", r.startedAt() == null ? null : time(r.startedAt()));
        o.put("finished_at", r.finishedAt() == null ? null : time(r.finishedAt()));
        boolean queued = JobState.QUEUED.contains(r.state());
        String reason = queued && live != null && live.reason() != null ? live.reason() : r.reason();
        o.put("reason", reason);
        if (!queued && !r.state().terminal()) o.put("last_transition", r.reason());
        ArrayNode partners = o.putArray("partners");
        if (live != null) live.partners().forEach(partners::add);
        Double predicted = live != null && live.predictedSpeed() != null ? live.predictedSpeed() : r.predictedSpeed();
        putNullable(o, "predicted_speed", predicted);
        putNullable(o, "predicted_combined", live == null ? null : live.predictedCombined());
        o.put("prediction_basis", live == null ? null : live.predictionBasis());
        Double observed = live != null && live.observedSpeed() != null ? live.observedSpeed() : r.observedSpeed();
        putNullable(o, "observed_speed", observed);
        putNullable(o, "iterations_per_second", live == null ? null : live.iterationsPerSecond());
        Long progress = live != null && live.progressIter() != null ? live.progressIter() : r.progressIter();
        putNullable(o, "progress_iter", progress);
        if (live != null && live.queuePosition() != null) o.put("queue_position", live.queuePosition());
        ArrayNode sharedWith = o.putArray("shared_with");
        r.partners().forEach(sharedWith::add);
        controls(o, r.controls());
        return o;
    }

    private static void controls(ObjectNode o, JobControls c) {
        o.put("priority", c.priority());
        ArrayNode after = o.putArray("after");
        c.dependsOn().forEach(after::add);
        o.put("held", c.held());
        putNullable(o, "array_job", c.arrayJob());
        putNullable(o, "array_index", c.arrayIndex());
    }

    /**
     * A finished job for accounting: how long it waited for its first run, its time on GPUs over all runs, the
     * GPU-hours it held, the jobs it shared GPUs with, and its measured speed next to them relative to alone.
     */
    ObjectNode accounting(JobRecord r) {
        ObjectNode o = json.createObjectNode();
        o.put("id", r.id());
        o.put("name", r.name());
        o.put("owner", r.owner());
        o.put("state", r.state().dbName());
        o.put("workload", r.signature().label());
        o.put("gpus", r.gpus());
        o.put("submitted_at", time(r.submittedAt()));
        o.put("first_started_at", r.firstStartedAt() == null ? null : time(r.firstStartedAt()));
        o.put("finished_at", r.finishedAt() == null ? null : time(r.finishedAt()));
        putNullable(o, "wait_s", r.firstStartedAt() == null ? null : (r.firstStartedAt() - r.submittedAt()) / 1000.0);
        o.put("run_s", r.attainedGpuMs() / 1000.0 / r.gpus());
        o.put("gpu_hours", Math.round(r.attainedGpuMs() / 3_600_000.0 * 10_000) / 10_000.0);
        o.put("attempts", r.attempts());
        ArrayNode partners = o.putArray("shared_with");
        r.partners().forEach(partners::add);
        Double speed = r.observedSpeed();
        putNullable(o, "speed_vs_solo", speed);
        putNullable(o, "slowdown", speed == null || speed <= 0 ? null : 1 / speed);
        if (r.exitCode() == null) o.putNull("exit_code");
        else o.put("exit_code", r.exitCode());
        o.put("reason", r.reason());
        controls(o, r.controls());
        return o;
    }

    ArrayNode events(List<JobEvent> events) {
        ArrayNode a = json.createArrayNode();
        for (JobEvent e : events) {
            ObjectNode o = a.addObject();
            o.put("at", time(e.at()));
            o.put("from", e.from() == null ? null : e.from().dbName());
            o.put("to", e.to().dbName());
            o.put("actor", e.actor());
            o.put("reason", e.reason());
        }
        return a;
    }

    ObjectNode signature(WorkloadSignature s) {
        ObjectNode o = json.createObjectNode();
        o.put("model", s.model());
        o.put("dataset", s.dataset());
        o.put("batch_size", s.batchSize());
        o.put("amp", s.amp());
        o.put("label", s.label());
        return o;
    }

    static String time(long epochMs) { return Instant.ofEpochMilli(epochMs).toString(); }

    /**
     * Whether the policy holds a GPU for a waiting gang ({@code held}), for which job ({@code held_for}: the id only
     * when {@code visible} says the caller may see that job) and until when it expects the GPU free ({@code held_until},
     * ISO time; null when it cannot tell).
     */
    static void putHeld(ObjectNode o, LiveState.Held held, java.util.function.LongPredicate visible) {
        o.put("held", held != null);
        putNullable(o, "held_for", held != null && visible.test(held.jobId()) ? held.jobId() : null);
        o.put("held_until", held == null || held.freeAt() == null ? null : java.time.Instant.ofEpochMilli(held.freeAt()).toString());
    }

    static void putNullable(ObjectNode o, String field, Number v) {
        if (v == null || (v instanceof Double d && (d.isNaN() || d.isInfinite()))) o.putNull(field);
        else if (v instanceof Double d) o.put(field, Math.round(d * 10000) / 10000.0);
        else o.put(field, v.longValue());
    }
}
