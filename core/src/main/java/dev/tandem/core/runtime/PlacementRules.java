package dev.tandem.core.runtime;

import dev.tandem.core.model.Cluster;

import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;

/** Whether a job may be placed on the GPUs a decision names, and why not. */
public final class PlacementRules {
    /** At most this many jobs share one GPU. */
    public static final int MAX_JOBS_PER_GPU = 2;

    /**
     * A job already on a GPU, as the world sees it.
     *
     * @param busy why it cannot take a partner now (it is being profiled alone, it is stopping), or null
     */
    public record Tenant(String jobId, List<Integer> gpus, String busy) {}

    private PlacementRules() {}

    /** Why no job may join {@code jobId}, which must run alone for the reason {@code why} (as a tenant's busy reason). */
    public static String mustRunAlone(String jobId, String why) {
        return "job " + jobId + " must run alone (" + why + ")";
    }

    /**
     * The reason a job needing {@code jobGpus} GPUs may not start on {@code gpus}, or empty when it may: the gang
     * size must match, the GPUs must exist and be distinct, lie on one node unless the cluster lets gangs span
     * nodes, a GPU holds at most {@link #MAX_JOBS_PER_GPU} jobs, a
     * job that must run alone never joins another, a busy tenant takes no partner, and a gang shares only with a
     * gang on exactly the same GPUs.
     *
     * @param mustRunAlone why the job may not share a GPU (a new workload profiled alone, a job that ran out of
     *                     memory next to another), or null
     * @param tenantsOn    the jobs on a GPU (never including the job being placed)
     */
    public static Optional<String> refusal(int jobGpus, List<Integer> gpus, Cluster cluster, String mustRunAlone, IntFunction<List<Tenant>> tenantsOn) {
        return refusal(jobGpus, gpus, cluster, mustRunAlone, tenantsOn, g -> null);
    }

    /**
     * As above, where some GPUs may be unusable (live: busy with processes that are not the scheduler's).
     *
     * @param unusable why a GPU may not be used now, or null where it may
     */
    public static Optional<String> refusal(int jobGpus, List<Integer> gpus, Cluster cluster, String mustRunAlone, IntFunction<List<Tenant>> tenantsOn,
                                           IntFunction<String> unusable) {
        Optional<String> shape = shapeRefusal(jobGpus, gpus, cluster);
        if (shape.isPresent()) return shape;
        for (int g : gpus) {
            String why = unusable.apply(g);
            if (why != null) return Optional.of(why);
            List<Tenant> on = tenantsOn.apply(g);
            if (on.isEmpty()) continue;
            if (on.size() >= MAX_JOBS_PER_GPU) return Optional.of("GPU " + g + " already runs " + MAX_JOBS_PER_GPU + " jobs");
            if (mustRunAlone != null) return Optional.of(mustRunAlone);
            for (Tenant t : on) {
                if (t.busy() != null) return Optional.of(t.busy());
                if (!sameGpus(gpus, t.gpus())) {
                    return Optional.of("a gang shares only with a gang on the same GPUs (job " + t.jobId() + " runs on " + t.gpus() + ")");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The reason GPUs may not be held for a job needing {@code jobGpus} GPUs ({@code Decision.Reserve}), or empty:
     * they must be GPUs the job could start on once they are free (the gang size, GPUs that exist, distinct, on one
     * node unless gangs may span nodes). Who runs on them now does not matter: a hold is for GPUs still busy.
     */
    public static Optional<String> reservationRefusal(int jobGpus, List<Integer> gpus, Cluster cluster) {
        return shapeRefusal(jobGpus, gpus, cluster);
    }

    /**
     * Whether two lists of distinct GPUs name the same GPUs, in any order: a gang's GPUs are few, and a re-packing
     * policy (gavel-packed) moves jobs next to others hundreds of thousands of times a run, so no sets are made.
     */
    private static boolean sameGpus(List<Integer> a, List<Integer> b) {
        if (a.size() != b.size()) return false;
        for (int g : b) if (!a.contains(g)) return false;
        return true;
    }

    /** Whether the GPU at {@code i} is also at an earlier place of {@code gpus}. */
    private static boolean givenBefore(List<Integer> gpus, int i) {
        int g = gpus.get(i);
        for (int k = 0; k < i; k++) if (gpus.get(k) == g) return true;
        return false;
    }

    private static Optional<String> shapeRefusal(int jobGpus, List<Integer> gpus, Cluster cluster) {
        if (gpus.size() != jobGpus) return Optional.of("needs " + jobGpus + " GPU(s), decision gives " + gpus.size());
        for (int i = 0; i < gpus.size(); i++) {
            int g = gpus.get(i);
            if (g < 0 || g >= cluster.gpuCount()) return Optional.of("GPU " + g + " does not exist");
            // compared with the earlier ones, as Placements does: a gang's GPUs are few, and this runs for every start
            if (givenBefore(gpus, i)) return Optional.of("GPU " + g + " given twice");
        }
        if (!cluster.gangsSpanNodes()) {
            int node = cluster.nodeIndexOf(gpus.getFirst());
            for (int g : gpus) {
                if (cluster.nodeIndexOf(g) != node) {
                    return Optional.of("GPUs " + gpus + " lie on nodes " + cluster.gpu(gpus.getFirst()).node() + " and "
                            + cluster.gpu(g).node() + "; a job runs on one node");
                }
            }
        }
        return Optional.empty();
    }
}
