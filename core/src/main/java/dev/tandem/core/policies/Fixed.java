package dev.tandem.core.policies;

/**
 * Fixed-point text for decision reasons. Packing policies write a reason for each of hundreds of starts per
 * round; {@code String.format} parses its pattern and builds a Formatter every time, which was most of what a
 * round allocated.
 */
final class Fixed {
    private Fixed() {}

    /** {@code x} rounded half away from zero to {@code digits} decimals (0..6), e.g. {@code of(1.625, 2)} = "1.63". */
    static String of(double x, int digits) {
        return append(new StringBuilder(12), x, digits).toString();
    }

    /** Appends {@link #of} to a reason being built, without a String of its own. */
    static StringBuilder append(StringBuilder b, double x, int digits) {
        if (Double.isNaN(x) || Double.isInfinite(x)) return b.append(x);
        long scale = POWERS[digits];
        long units = Math.round(Math.abs(x) * scale);
        if (x < 0 && units != 0) b.append('-');
        b.append(units / scale);
        if (digits > 0) {
            b.append('.');
            long frac = units % scale;
            for (long p = scale / 10; p > 1 && frac < p; p /= 10) b.append('0'); // leading zeros of the fraction
            b.append(frac);
        }
        return b;
    }

    private static final long[] POWERS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000};
}
