package dev.tandem.server.sched;

import dev.tandem.core.runtime.Placements;
import dev.tandem.server.exec.Executor;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.GpuLocks;

import java.util.List;

/**
 * The GPUs the policy may not place on now, and why: held by another tandem serve ({@link GpuLocks}, tried again every
 * {@link #LOCK_RETRY_MS} so that a GPU another daemon lets go is taken), busy with processes that are not tandem's
 * ({@link ForeignProcesses}), or taken out by the executor's cluster ({@link Executor#unavailable}: a Slurm node down,
 * drained or with no CPU or memory free, a GPU another Slurm job or tandem daemon holds; asked again every few seconds). They are marked in the runtime's ledger ({@link Placements#setUsable}),
 * whose counts every policy reads, the placement rules refuse them with the reason, and {@code tandem gpus} shows it.
 */
final class UnusableGpus {
    static final long LOCK_RETRY_MS = 5000;

    private final List<GpuDevice> devices;
    private final Placements<?, ?> ledger;
    final ForeignProcesses foreign;
    private final Executor executor;
    /** This daemon's GPU locks, or null where no other daemon competes for the GPUs (Slurm, simulated). */
    private GpuLocks locks;
    private long nextRetry;

    UnusableGpus(List<GpuDevice> devices, Placements<?, ?> ledger, ForeignProcesses foreign, Executor executor) {
        this.devices = devices;
        this.ledger = ledger;
        this.foreign = foreign;
        this.executor = executor;
    }

    void useLocks(GpuLocks locks) {
        this.locks = locks;
        recompute();
    }

    /** Looks again (processes every round, locks and the cluster's nodes every few seconds); returns whether the set changed. */
    boolean refresh(long now) {
        boolean changed = foreign.refresh();
        if (executor.refreshCluster(now)) changed = true;
        if (locks != null && now >= nextRetry) {
            nextRetry = now + LOCK_RETRY_MS;
            if (!locks.retry().isEmpty()) changed = true;
        }
        if (changed) recompute();
        return changed;
    }

    private void recompute() {
        for (int g = 0; g < devices.size(); g++) ledger.setUsable(g, why(g) == null);
    }

    /** The GPUs that run no job of the daemon's and may take none now (for the metrics: idle, but not for tandem). */
    int idleUnusable() {
        int n = 0;
        for (int g = 0; g < devices.size(); g++) if (!ledger.usable(g) && ledger.on(g).isEmpty()) n++;
        return n;
    }

    /** Why a GPU may not be used now, or null where it may. */
    String why(int gpu) {
        String locked = locks == null ? null : locks.why(devices.get(gpu));
        if (locked != null) return locked;
        String foreignWhy = foreign.why(gpu);
        return foreignWhy != null ? foreignWhy : executor.unavailable(devices.get(gpu).index());
    }
}
