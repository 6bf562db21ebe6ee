package dev.tandem.sim.trace;

/** What a trace reader does with a malformed row. */
public enum BadRows {
    /** The first bad row throws a {@link dev.tandem.data.DataFormatException} naming file, line and field. */
    REJECT,
    /** Bad rows are left out and counted; the first few problems are kept for the user to see. */
    SKIP
}
