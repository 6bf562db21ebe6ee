package dev.tandem.server;

import picocli.CommandLine;

import java.util.Locale;

/** Durations on the command line, in milliseconds: {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1h}; a bare number is seconds. */
public final class DurationConverter implements CommandLine.ITypeConverter<Long> {
    @Override public Long convert(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        try {
            if (v.endsWith("ms")) return Math.round(Double.parseDouble(v.substring(0, v.length() - 2)));
            double factor = 1000;
            char unit = v.isEmpty() ? ' ' : v.charAt(v.length() - 1);
            switch (unit) {
                case 's' -> v = v.substring(0, v.length() - 1);
                case 'm' -> { factor = 60_000; v = v.substring(0, v.length() - 1); }
                case 'h' -> { factor = 3_600_000; v = v.substring(0, v.length() - 1); }
                default -> { }
            }
            double d = Double.parseDouble(v);
            if (d < 0) throw new CommandLine.TypeConversionException("'" + value + "' is negative");
            return Math.round(d * factor);
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration like 500ms, 30s, 2m or 1h");
        }
    }
}
