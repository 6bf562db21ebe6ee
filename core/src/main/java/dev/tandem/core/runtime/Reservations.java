package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;
import dev.tandem.core.policy.Decision;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The GPUs a policy holds for waiting gangs, as they stay between decisions: what {@link Decision.Reserve} said at the
 * policy's last decision. Each world's {@link DecisionCarrier} keeps them; the simulator records when a hold begins,
 * the daemon tells users which GPUs are held for whom and why a job waits for them.
 *
 * <p>A hold lasts while the policy re-issues it: each decision replaces the holds of the previous one
 * ({@link #decided}). It also ends when its job leaves the queue ({@link #left}), between decisions.
 */
public final class Reservations {
    /**
     * GPUs held for a job.
     *
     * @param since   when the hold began (a hold re-issued on the same GPUs keeps it)
     * @param readyAt when the policy expects the GPUs to be free, as of its last decision (may be infinite)
     */
    public record Hold(String jobId, List<Integer> gpus, double since, double readyAt, String reason) {}

    /** What a decision changed: holds that began (or moved to other GPUs), and holds that ended. */
    public record Changes(List<Hold> begun, List<Hold> ended) {}

    private Map<String, Hold> byJob = new LinkedHashMap<>();
    private final Map<Integer, Hold> byGpu = new HashMap<>();

    /**
     * The one check of a hold, in every world: why {@code r} may not be held, or empty. The job must be waiting
     * ({@code waiting}: in the queue the policy was given), the GPUs must be ones it could start on
     * ({@link PlacementRules#reservationRefusal}) and not held already by the same decision ({@link #conflict}).
     *
     * @param jobGpus  the job's gang size
     * @param accepted the holds of the same decision accepted before this one
     */
    public static Optional<String> refusal(Decision.Reserve r, boolean waiting, int jobGpus, Cluster cluster, List<Decision.Reserve> accepted) {
        if (!waiting) return Optional.of("job " + r.jobId() + " is not waiting: GPUs are held only for a job in the queue");
        if (!(r.readyInSeconds() >= 0)) return Optional.of("a hold's expected free time must be 0 or more seconds, not " + r.readyInSeconds());
        Optional<String> shape = PlacementRules.reservationRefusal(jobGpus, r.gpus(), cluster);
        return shape.isPresent() ? shape : conflict(accepted, r);
    }

    /**
     * Why a decision may not also hold {@code r}, given the holds it has named before ({@code accepted}): a job has one
     * hold, a GPU is held for one job. Empty when it may.
     */
    public static Optional<String> conflict(List<Decision.Reserve> accepted, Decision.Reserve r) {
        for (Decision.Reserve a : accepted) {
            if (a.jobId().equals(r.jobId())) return Optional.of("job " + r.jobId() + " is given two holds in one decision");
            for (int g : r.gpus()) if (a.gpus().contains(g)) return Optional.of("GPU " + g + " is already held for job " + a.jobId());
        }
        return Optional.empty();
    }

    /**
     * The holds a policy's decision at {@code now} named (its {@link Decision.Reserve}s, already accepted by the
     * world's checks): they replace the previous decision's.
     */
    public Changes decided(List<Decision.Reserve> reserves, double now) {
        if (reserves.isEmpty() && byJob.isEmpty()) return new Changes(List.of(), List.of());
        Map<String, Hold> next = new LinkedHashMap<>();
        List<Hold> begun = new ArrayList<>();
        for (int i = 0; i < reserves.size(); i++) {
            Decision.Reserve r = reserves.get(i);
            conflict(reserves.subList(0, i), r).ifPresent(why -> { throw new IllegalArgumentException(why); }); // the world checks first
            Hold before = byJob.get(r.jobId());
            boolean same = before != null && before.gpus().equals(r.gpus());
            Hold h = new Hold(r.jobId(), r.gpus(), same ? before.since() : now, now + r.readyInSeconds(), r.reason());
            next.put(r.jobId(), h);
            if (!same) begun.add(h);
        }
        List<Hold> ended = new ArrayList<>();
        for (Hold h : byJob.values()) {
            Hold after = next.get(h.jobId());
            if (after == null || !after.gpus().equals(h.gpus())) ended.add(h);
        }
        byJob = next;
        byGpu.clear();
        for (Hold h : next.values()) for (int g : h.gpus()) byGpu.put(g, h);
        return new Changes(List.copyOf(begun), List.copyOf(ended));
    }

    /** The job started, finished or was cancelled: GPUs held for it are free for others. */
    public Optional<Hold> left(String jobId) {
        Hold h = byJob.remove(jobId);
        if (h != null) for (int g : h.gpus()) byGpu.remove(g, h);
        return Optional.ofNullable(h);
    }

    public Optional<Hold> forJob(String jobId) { return Optional.ofNullable(byJob.get(jobId)); }

    /** The hold on a GPU, if it is held. */
    public Optional<Hold> on(int gpu) { return Optional.ofNullable(byGpu.get(gpu)); }

    public Collection<Hold> all() { return Collections.unmodifiableCollection(byJob.values()); }

    public boolean isEmpty() { return byJob.isEmpty(); }
}
