package dev.tandem.cli;

import dev.tandem.core.model.DurationText;
import picocli.CommandLine;


/** Parses durations such as {@code 90}, {@code 90s}, {@code 30m}, {@code 16h}, {@code 2d} into seconds. */
final class Durations implements CommandLine.ITypeConverter<Double> {
    @Override public Double convert(String value) {
        return parse(value);
    }

    /** Seconds, by tandem's one duration syntax ({@link DurationText}). */
    static double parse(String value) {
        try {
            return DurationText.seconds(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
