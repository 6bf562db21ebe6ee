package dev.tandem.server.sched;

import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.runtime.Admission;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.User;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * Which waiting jobs go to the policy this round, in which order: held jobs and jobs whose dependencies have not all
 * succeeded stay back (a job whose dependency failed or was cancelled is cancelled, as it could never start), and
 * the rest pass core's {@link Admission} (priority, fair share between users, per-user GPU limits). Every job held
 * back gets the reason that {@code tandem show} prints.
 */
final class QueueGate {
    private static final Logger log = LoggerFactory.getLogger(QueueGate.class);

    /**
     * @param admitted the jobs the policy sees, in serving order
     * @param waiting  why each other waiting job is held back, by job id
     */
    record Verdict(List<PendingJob> admitted, Map<Long, String> waiting) {
        static final Verdict EMPTY = new Verdict(List.of(), Map.of());
    }

    private final Context ctx;
    /** Finished dependencies by id: their state never changes again, so they are looked up once. */
    private final Map<Long, JobState> finished = new HashMap<>();

    QueueGate(Context ctx) {
        this.ctx = ctx;
    }

    /**
     * @param queued   waiting jobs with no process still ending, in submission order
     * @param jobs     every job the round is about, by id
     * @param toPolicy a waiting job as the policy sees it
     */
    Verdict apply(List<JobRecord> queued, Map<Long, JobRecord> jobs, Function<JobRecord, PendingJob> toPolicy, long now) {
        Map<Long, String> waiting = new LinkedHashMap<>();
        List<PendingJob> ready = new ArrayList<>(queued.size());
        for (JobRecord r : queued) {
            if (r.controls().held()) {
                waiting.put(r.id(), "held; `tandem release " + r.id() + "` lets it run");
                continue;
            }
            Optional<String> blocked = dependencies(r, jobs, now);
            if (blocked.isPresent()) {
                waiting.put(r.id(), blocked.get());
                continue;
            }
            ready.add(toPolicy.apply(r));
        }
        Map<String, Integer> held = new HashMap<>();
        for (Run run : ctx.runs.all()) {
            JobRecord r = jobs.get(run.jobId);
            if (r != null) held.merge(r.owner(), run.gpus.size(), Integer::sum);
        }
        Map<String, OptionalInt> limits = new HashMap<>();
        Admission.Result admitted = Admission.admit(ready, held, user -> limits.computeIfAbsent(user, this::limitOf));
        admitted.refused().forEach((id, why) -> waiting.put(Long.parseLong(id), "waits: " + why));
        return new Verdict(admitted.admitted(), waiting);
    }

    private OptionalInt limitOf(String user) {
        Integer own = ctx.store.user(user).map(User::maxGpus).orElse(null);
        int limit = own != null ? own : ctx.cfg.maxGpusPerUser();
        return limit > 0 ? OptionalInt.of(limit) : OptionalInt.empty();
    }

    /**
     * Why the job must wait for other jobs, or empty when all it depends on have succeeded. A dependency that failed
     * or was cancelled cancels the job (then also empty: it no longer waits).
     */
    private Optional<String> dependencies(JobRecord r, Map<Long, JobRecord> jobs, long now) {
        if (r.controls().dependsOn().isEmpty()) return Optional.empty();
        List<String> open = new ArrayList<>();
        for (long dep : r.controls().dependsOn()) {
            JobState state = stateOf(dep, jobs);
            if (state == JobState.SUCCEEDED) continue;
            if (state == null || state.terminal()) {
                String why = "cancelled: job " + dep + (state == null ? " does not exist" : " " + state.dbName()) + ", and this job runs only after it succeeds";
                if (ctx.store.transition(r.id(), JobState.QUEUED, JobState.CANCELLED, Context.ACTOR, why,
                        new Change().set(Change.Column.FINISHED_AT, now), now)) {
                    log.info("job {} {}", r.id(), why);
                    ctx.decisions.add(now, r.id(), r.owner(), "cancelled", why);
                    ctx.due.happened();
                }
                return Optional.of(why);
            }
            open.add(dep + " (" + state.dbName() + ")");
        }
        return open.isEmpty() ? Optional.empty() : Optional.of("waits for job(s) " + String.join(", ", open) + " to succeed");
    }

    private JobState stateOf(long id, Map<Long, JobRecord> jobs) {
        JobRecord r = jobs.get(id);
        if (r != null) return r.state();
        JobState known = finished.get(id);
        if (known != null) return known;
        JobState state = ctx.store.job(id).map(JobRecord::state).orElse(null);
        if (state != null && state.terminal()) finished.put(id, state);
        return state;
    }
}
