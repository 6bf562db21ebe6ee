package dev.tandem.server.store;

import java.util.ArrayList;
import java.util.List;

/** Column updates that go with a job transition; column names are fixed here, never taken from input. */
public final class Change {
    public enum Column {
        ATTEMPTS, EXCLUSIVE, GPU_IDS, PID, PID_STARTED, EXIT_CODE, PROGRESS_ITER, ATTAINED_GPU_MS, PREDICTED_SPEED,
        OBSERVED_SPEED, QUEUED_AT, STARTED_AT, FINISHED_AT;

        String sql() { return name().toLowerCase(java.util.Locale.ROOT); }
    }

    record Item(Column column, Object value, boolean add) {}

    final List<Item> items = new ArrayList<>();

    public static Change none() { return new Change(); }

    public Change set(Column c, Object value) {
        items.add(new Item(c, value, false));
        return this;
    }

    public Change add(Column c, long delta) {
        items.add(new Item(c, delta, true));
        return this;
    }
}
