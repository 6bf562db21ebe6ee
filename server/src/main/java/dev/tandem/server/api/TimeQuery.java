package dev.tandem.server.api;

import dev.tandem.core.model.DurationText;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/** A point in time as a query parameter: an ISO-8601 instant, a date (midnight UTC), or a duration back from now ("7d"). */
final class TimeQuery {
    private TimeQuery() {}

    static long parse(String value, String field, long dflt, long now) {
        if (value == null || value.isBlank()) return dflt;
        String v = value.strip();
        try {
            if (v.contains("T")) return Instant.parse(v).toEpochMilli();
            if (v.length() == 10 && v.charAt(4) == '-') return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            throw ApiError.badField(field, "not a time: '" + v + "' (e.g. 2026-12-01, 2026-12-01T08:00:00Z or 7d for seven days ago)");
        }
        try {
            return now - DurationText.millis(v);
        } catch (IllegalArgumentException e) {
            throw ApiError.badField(field, "not a time: '" + v + "' (e.g. 2026-12-01, 2026-12-01T08:00:00Z or 7d for seven days ago)");
        }
    }
}
