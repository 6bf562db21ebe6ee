package dev.tandem.core.policies;

import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * Tiresias' discretised two-dimensional least-attained-service (2D-LAS, Gu et al., NSDI'19), exclusive GPUs.
 * A job's attained service is GPUs x seconds run so far; jobs are binned into priority queues by thresholds
 * on it (fewer service = higher queue), FIFO by submission within a queue, and higher queues preempt lower
 * ones. Without duration knowledge it approximates SRTF for heavy-tailed workloads. Starvation guard as in
 * the paper: a job that has waited longer than {@code promoteFactor} times its attained run time is moved to
 * the top queue.
 */
public final class TiresiasPolicy implements Policy {
    private final double[] thresholdsGpuSeconds;
    private final double promoteFactor;

    public TiresiasPolicy() {
        this(new double[] {3600, 36_000}, 8.0);
    }

    public TiresiasPolicy(double[] thresholdsGpuSeconds, double promoteFactor) {
        this.thresholdsGpuSeconds = thresholdsGpuSeconds.clone();
        this.promoteFactor = promoteFactor;
    }

    @Override public String name() { return "tiresias"; }

    @Override public boolean actsOnRunningJobs() { return true; }

    int queueOf(double attained) {
        int q = 0;
        while (q < thresholdsGpuSeconds.length && attained >= thresholdsGpuSeconds[q]) q++;
        return q;
    }

    @Override public List<Decision> decide(SchedulerSnapshot s) {
        if (s.queue().isEmpty()) return List.of();
        List<PreemptivePriority.Candidate> c = new ArrayList<>();
        for (RunningJob r : s.running()) c.add(new PreemptivePriority.Candidate(r.job(), queueOf(r.attainedGpuSeconds()), true));
        for (PendingJob p : s.queue()) {
            double waited = s.now() - p.queuedSince();
            double ran = p.attainedGpuSeconds() / p.job().gpus();
            boolean starving = ran > 0 && waited > promoteFactor * ran;
            c.add(new PreemptivePriority.Candidate(p.job(), starving ? 0 : queueOf(p.attainedGpuSeconds()), false));
        }
        return PreemptivePriority.schedule(s, c, "tiresias");
    }
}
