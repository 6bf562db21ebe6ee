package dev.tandem.cli;

import picocli.CommandLine;

import java.util.Locale;

/** Parses durations such as {@code 90}, {@code 90s}, {@code 30m}, {@code 16h}, {@code 2d} into seconds. */
final class Durations implements CommandLine.ITypeConverter<Double> {
    @Override public Double convert(String value) {
        return parse(value);
    }

    static double parse(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        double unit = 1;
        if (v.endsWith("s")) { v = v.substring(0, v.length() - 1); }
        else if (v.endsWith("m")) { unit = 60; v = v.substring(0, v.length() - 1); }
        else if (v.endsWith("h")) { unit = 3600; v = v.substring(0, v.length() - 1); }
        else if (v.endsWith("d")) { unit = 86400; v = v.substring(0, v.length() - 1); }
        try {
            double d = Double.parseDouble(v) * unit;
            if (d < 0 || Double.isNaN(d) || Double.isInfinite(d)) throw new NumberFormatException();
            return d;
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (e.g. 90s, 30m, 16h, 2d)");
        }
    }
}
