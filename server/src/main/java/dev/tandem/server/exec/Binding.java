package dev.tandem.server.exec;

/**
 * A run being started, in two parts so that a slow start (Slurm's {@code sbatch}, about a second) does not hold up
 * the scheduling round: {@link #call} does the slow part and may run on another thread, so it touches none of the
 * executor's state; {@link #finish} then records the run in the executor, back on the scheduler loop's thread. An
 * executor whose starts are quick (a local fork) finishes at once ({@link #done}).
 *
 * @param <T> what the slow part gives the record
 */
public interface Binding<T> {
    /** The slow part (any thread). Throws {@link ExecutorUnavailable} or {@link ExecException} as a start does. */
    T call();

    /** Records the run from what {@link #call} returned (loop thread); may still throw as a start does. */
    Launched finish(T called);

    /** Bookkeeping after {@link #call} threw (loop thread), e.g. that slurmctld did not answer. */
    default void failed(RuntimeException e) { }

    /**
     * The record step once the slow part has returned {@code called} or thrown {@code error} (loop thread): the
     * failure's bookkeeping and the failure itself, or {@link #finish}.
     */
    default Launched complete(T called, RuntimeException error) {
        if (error != null) {
            failed(error);
            throw error;
        }
        return finish(called);
    }

    /** Both parts on the caller's thread: a start that waits for its slow part. */
    default Launched runHere() {
        T called;
        try {
            called = call();
        } catch (RuntimeException e) {
            return complete(null, e);
        }
        return complete(called, null);
    }

    /** Whether the run has already started: no slow part left, {@link #call} returns at once. */
    default boolean started() { return false; }

    /** A run the executor started while binding it. */
    static Binding<Launched> done(Launched launched) {
        return new Binding<>() {
            @Override public Launched call() { return launched; }

            @Override public Launched finish(Launched called) { return called; }

            @Override public boolean started() { return true; }
        };
    }
}
