package dev.tandem.sim.trace;

import dev.tandem.data.Csv;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;

/**
 * Calendar times "YYYY-MM-DD HH:MM:SS[.fraction]" as in Philly's and Helios' logs. The logs name no time zone;
 * they are read as UTC so that no daylight-saving jump distorts the differences, which are all that is used.
 */
final class Times {
    private static final DateTimeFormatter FORMAT = new DateTimeFormatterBuilder().appendPattern("uuuu-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .toFormatter().withResolverStyle(ResolverStyle.STRICT);

    private Times() {}

    /** Epoch seconds of {@code text}, or NaN when it is not such a time. */
    static double epochSeconds(String text) {
        try {
            LocalDateTime t = LocalDateTime.parse(text.trim(), FORMAT);
            return t.toEpochSecond(ZoneOffset.UTC) + t.getNano() / 1e9;
        } catch (DateTimeParseException e) {
            return Double.NaN;
        }
    }

    static double epochSeconds(Csv.Row row, String field) {
        String v = row.text(field);
        double t = epochSeconds(v);
        if (Double.isNaN(t)) throw row.error(field, notATime(v));
        return t;
    }

    static String notATime(String value) { return "'" + value + "' is not a time YYYY-MM-DD HH:MM:SS"; }
}
