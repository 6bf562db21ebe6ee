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

    /**
     * The waiting jobs in queue position order, each with why it waits (null beyond the first few: its position says
     * it, {@link JobLive#reason}). A round publishes ids and reasons only; a job's {@link JobLive} is made when asked for
     * (an API read of the job, the dashboard's queue), and the index by id when first asked: with 10,000 queued, making
     * them all every round was a sixth of the round.
     */
    public static final class Waiting {
        public static final Waiting NONE = new Waiting(new long[0], new String[0]);

        private final long[] ids;
        private final String[] reasons;
        private volatile Map<Long, Integer> positions;

        /** @param reasons per job in {@code ids}' order, why it waits, or null */
        public Waiting(long[] ids, String[] reasons) {
            if (ids.length != reasons.length) throw new IllegalArgumentException(ids.length + " ids, " + reasons.length + " reasons");
            this.ids = ids;
            this.reasons = reasons;
        }

        public int size() { return ids.length; }

        /** The job at queue position {@code index + 1}. */
        public JobLive get(int index) {
            return new JobLive(ids[index], List.of(), null, null, null, null, null, null, reasons[index], index + 1);
        }

        /** All of them in queue position order (made as they are read). */
        public List<JobLive> inOrder() {
            return new java.util.AbstractList<>() {
                @Override public JobLive get(int index) { return Waiting.this.get(index); }

                @Override public int size() { return ids.length; }
            };
        }

        /** A waiting job by id, or null. */
        public JobLive byId(long id) {
            Map<Long, Integer> index = positions;
            if (index == null) {
                Map<Long, Integer> m = new java.util.HashMap<>(ids.length * 2);
                for (int i = 0; i < ids.length; i++) m.put(ids[i], i);
                positions = index = m;
            }
            Integer at = index.get(id);
            return at == null ? null : get(at);
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
        return r != null ? r : waiting.byId(id);
    }

    public int queueLength() { return waiting.size(); }
}
