package dev.tandem.server.sched;

import dev.tandem.server.exec.Binding;
import dev.tandem.server.exec.Launched;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The binding step of starting runs (as the Kubernetes scheduler binds a pod after its scheduling cycle): the slow
 * part of each start ({@link Binding#call}, e.g. sbatch) runs on a virtual thread of its own, so that the round
 * which decided the start goes on; what it returned or threw waits here until the loop takes it ({@link #done}) and
 * finishes the start on its own thread. Meanwhile the run holds its GPUs in the ledger of placements.
 */
final class Binder implements AutoCloseable {
    /** What the loop needs to finish a start: the job as claimed, its new state and why, and the run holding its GPUs. */
    record Start(JobRecord job, JobState state, String reason, int attempt, Run run) {}

    /** A binding whose slow part has returned ({@code error} null) or thrown. */
    record Bound(Start start, Binding<?> binding, Object called, RuntimeException error) {
        /** The binding's record step, or the failure of its slow part (after its bookkeeping). */
        @SuppressWarnings("unchecked")
        Launched finish() {
            return ((Binding<Object>) binding).complete(called, error);
        }
    }

    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final ConcurrentLinkedQueue<Bound> done = new ConcurrentLinkedQueue<>();
    private final Runnable wake;

    /** @param wake asks the loop for a round, to finish what was bound */
    Binder(Runnable wake) {
        this.wake = wake;
    }

    void bind(Start start, Binding<?> binding) {
        threads.execute(() -> {
            Bound b;
            try {
                b = new Bound(start, binding, binding.call(), null);
            } catch (RuntimeException e) {
                b = new Bound(start, binding, null, e);
            }
            done.add(b);
            wake.run();
        });
    }

    /** The bindings whose slow part has returned since the last call, oldest first. */
    List<Bound> done() {
        List<Bound> out = new ArrayList<>();
        for (Bound b = done.poll(); b != null; b = done.poll()) out.add(b);
        return out;
    }

    /** Waits for the bindings in flight (shutdown); what they give is then in {@link #done}. */
    @Override public void close() {
        threads.close();
    }
}
