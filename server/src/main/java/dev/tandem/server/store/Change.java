package dev.tandem.server.store;

import java.util.ArrayList;
import java.util.List;

/** Column updates that go with a job transition; column names are fixed here, never taken from input. */
public final class Change {
    public enum Column {
        ATTEMPTS, EXCLUSIVE, GPU_IDS, PID, PID_STARTED, EXIT_CODE, PROGRESS_ITER, ATTAINED_GPU_MS, PREDICTED_SPEED,
        OBSERVED_SPEED, QUEUED_AT, STARTED_AT, FIRST_STARTED_AT, FINISHED_AT;

        String sql() { return name().toLowerCase(java.util.Locale.ROOT); }
    }

    enum Mode { SET, ADD, SET_IF_NULL }

    record Item(Column column, Object value, Mode mode) {
        /** The SQL assignment of this item, with one parameter. */
        String assignment() {
            String c = column.sql();
            return switch (mode) {
                case SET -> c + " = ?";
                case ADD -> c + " = " + c + " + ?";
                case SET_IF_NULL -> c + " = COALESCE(" + c + ", ?)";
            };
        }
    }

    final List<Item> items = new ArrayList<>();

    public static Change none() { return new Change(); }

    public Change set(Column c, Object value) {
        items.add(new Item(c, value, Mode.SET));
        return this;
    }

    /** Sets the column only if it has no value yet (e.g. when a job first started). */
    public Change setIfNull(Column c, Object value) {
        items.add(new Item(c, value, Mode.SET_IF_NULL));
        return this;
    }

    public Change add(Column c, long delta) {
        items.add(new Item(c, delta, Mode.ADD));
        return this;
    }
}
