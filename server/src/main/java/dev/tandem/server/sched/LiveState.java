package dev.tandem.server.sched;

import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.gpu.GpuSample;

import java.util.List;
import java.util.Map;

/**
 * What the scheduler loop publishes after each tick for the API: which jobs are on which GPU, and per job the
 * things the store does not keep (live speeds, partners, why a queued job waits). Immutable; replaced whole. The
 * running jobs are described anew each tick; the waiting ones after each decision (their reasons change only then),
 * so a long queue costs a tick nothing.
 *
 * @param running the jobs holding GPUs, by id
 * @param waiting the waiting jobs in queue position order, from 1
 */
public record LiveState(long at, List<GpuLive> gpus, Map<Long, JobLive> running, Waiting waiting) {
    public static final LiveState EMPTY = new LiveState(0, List.of(), Map.of(), Waiting.NONE);

    /** The waiting jobs in queue position order, and by id. */
    public record Waiting(List<JobLive> inOrder, Map<Long, JobLive> byId) {
        public static final Waiting NONE = new Waiting(List.of(), Map.of());

        public Waiting(List<JobLive> inOrder) {
            this(List.copyOf(inOrder), index(inOrder));
        }

        private static Map<Long, JobLive> index(List<JobLive> jobs) {
            Map<Long, JobLive> m = new java.util.HashMap<>(jobs.size() * 2);
            for (JobLive j : jobs) m.put(j.jobId(), j);
            return java.util.Collections.unmodifiableMap(m);
        }
    }

    /**
     * @param foreign     processes on the GPU that are not tandem's
     * @param unavailable why no job is placed on the GPU now (another daemon holds it, or such processes use it), or null
     * @param heldFor     the waiting gang the policy holds the GPU for ({@code Decision.Reserve}), or null
     */
    public record GpuLive(int clusterId, GpuDevice device, List<Long> jobs, GpuSample latest, List<dev.tandem.server.gpu.ComputeApp> foreign,
                          String unavailable, Held heldFor) {}

    /** @param freeAt when the policy expected the GPUs to be free at its last decision, epoch ms (null: it cannot tell) */
    public record Held(long jobId, Long freeAt) {}

    /**
     * @param predictedSpeed this job's predicted speed relative to solo next to its partner
     * @param observedSpeed  its measured speed relative to solo since its neighbours last changed
     * @param explanation    for a queued job, why it waits
     */
    public record JobLive(long jobId, List<Long> partners, Double predictedSpeed, Double predictedCombined, String predictionBasis,
                          Double observedSpeed, Double iterationsPerSecond, Long progressIter, String explanation, Integer queuePosition) {
        /** Why a waiting job waits: its explanation, or (far back in a long queue) its position; null for a running job. */
        public String reason() {
            if (explanation != null || queuePosition == null) return explanation;
            return "position " + queuePosition + " in the queue";
        }
    }

    public JobLive job(long id) {
        JobLive r = running.get(id);
        return r != null ? r : waiting.byId().get(id);
    }

    public int queueLength() { return waiting.inOrder().size(); }
}
