package dev.tandem.cli;

import picocli.CommandLine;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code --memory} values in MiB: {@code 12G}, {@code 12GiB}, {@code 512M}, {@code 1.5G}; a bare number is MiB. */
final class MemorySize implements CommandLine.ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(g|gb|gib|m|mb|mib|t|tb|tib)?");

    @Override public Long convert(String value) {
        Matcher m = SIZE.matcher(value.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) throw new CommandLine.TypeConversionException("'" + value + "' is not a memory size like 12G or 512M");
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "m" : m.group(2).substring(0, 1);
        double mib = switch (unit) {
            case "t" -> n * 1024 * 1024;
            case "g" -> n * 1024;
            default -> n;
        };
        return (long) Math.ceil(mib);
    }
}
