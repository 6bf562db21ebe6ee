package dev.tandem.server.store;

import java.util.ArrayList;
import java.util.List;

/** Column updates that go with a job transition; column names are fixed here, never taken from input. */
public final class Change {
    public enum Column {
        ATTEMPTS(false), EXCLUSIVE(false), GPU_IDS(false), PID(true), PID_STARTED(true), EXIT_CODE(true), PROGRESS_ITER(true),
        ATTAINED_GPU_MS(false), PREDICTED_SPEED(true), OBSERVED_SPEED(true), QUEUED_AT(false), STARTED_AT(true),
        FIRST_STARTED_AT(true), FINISHED_AT(true);

        /** Whether the column holds a value or none (NULL) that {@link #setIfNull} can tell apart; gpu_ids' none is an empty list. */
        final boolean nullable;

        Column(boolean nullable) { this.nullable = nullable; }

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
        if (!c.nullable) throw new IllegalArgumentException(c + " always has a value: set it");
        items.add(new Item(c, value, Mode.SET_IF_NULL));
        return this;
    }

    public Change add(Column c, long delta) {
        items.add(new Item(c, delta, Mode.ADD));
        return this;
    }
}
