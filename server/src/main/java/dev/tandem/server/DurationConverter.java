package dev.tandem.server;

import dev.tandem.core.model.DurationText;
import picocli.CommandLine;

/** Durations on the command line, in milliseconds, by tandem's one duration syntax ({@link DurationText}: ms, s, m, h, d). */
public final class DurationConverter implements CommandLine.ITypeConverter<Long> {
    @Override public Long convert(String value) {
        try {
            return DurationText.millis(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /** The same syntax in seconds (the simulator's unit). */
    public static final class Seconds implements CommandLine.ITypeConverter<Double> {
        @Override public Double convert(String value) {
            try {
                return DurationText.seconds(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
