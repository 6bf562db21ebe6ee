package dev.tandem.core.model;

import java.util.Locale;

/**
 * The one way tandem reads a duration, in every command and config: a number with an optional unit, {@code ms},
 * {@code s}, {@code m}, {@code h} or {@code d} (a bare number is seconds), e.g. {@code 500ms}, {@code 90s},
 * {@code 30m}, {@code 16h}, {@code 7d}, {@code 1.5h}. Negative, infinite and non-numeric values are refused.
 */
public final class DurationText {
    private DurationText() {}

    /** @throws IllegalArgumentException naming the text and the accepted forms */
    public static double seconds(String text) {
        String v = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        double unit = 1;
        if (v.endsWith("ms")) { unit = 0.001; v = v.substring(0, v.length() - 2); }
        else if (v.endsWith("s")) { v = v.substring(0, v.length() - 1); }
        else if (v.endsWith("m")) { unit = 60; v = v.substring(0, v.length() - 1); }
        else if (v.endsWith("h")) { unit = 3600; v = v.substring(0, v.length() - 1); }
        else if (v.endsWith("d")) { unit = 86_400; v = v.substring(0, v.length() - 1); }
        double d;
        try {
            d = Double.parseDouble(v.strip()) * unit;
        } catch (NumberFormatException e) {
            d = Double.NaN;
        }
        if (!(d >= 0) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (a number with ms, s, m, h or d, e.g. 500ms, 90s, 30m, 16h, 7d)");
        }
        return d;
    }

    /** As {@link #seconds}, in whole milliseconds. */
    public static long millis(String text) {
        return Math.round(seconds(text) * 1000);
    }

    /** Whole seconds as {@code h:mm:ss} (hours unbounded), the way the CLI's tables show elapsed times. */
    public static String hms(long seconds) {
        return String.format(Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60);
    }

    /**
     * A rough time from now for people: "in 40 s", "in 35 min", "in 2.5 h", "in 3.1 d", or "at a time no one can tell
     * yet" when {@code seconds} is infinite or not a number.
     */
    public static String roughIn(double seconds) {
        if (!(seconds >= 0) || Double.isInfinite(seconds)) return "at a time no one can tell yet";
        return "in " + roughKnown(seconds);
    }

    private static String roughKnown(double seconds) {
        if (seconds < 90) return Math.round(seconds) + " s";
        if (seconds < 90 * 60) return Math.round(seconds / 60) + " min";
        if (seconds < 48 * 3600) return String.format(Locale.ROOT, "%.1f h", seconds / 3600);
        return String.format(Locale.ROOT, "%.1f d", seconds / 86_400);
    }
}
