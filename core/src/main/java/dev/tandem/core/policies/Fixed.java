package dev.tandem.core.policies;

/**
 * Fixed-point text for decision reasons. Packing policies write a reason for each of hundreds of starts per
 * round; {@code String.format} parses its pattern and builds a Formatter every time, which was most of what a
 * round allocated.
 */
final class Fixed {
    private Fixed() {}

    /** {@code x} rounded half up to {@code digits} decimals (0..6), e.g. {@code of(1.505, 2)} = "1.51". */
    static String of(double x, int digits) {
        if (Double.isNaN(x) || Double.isInfinite(x)) return Double.toString(x);
        long scale = (long) Math.pow(10, digits);
        long units = Math.round(Math.abs(x) * scale);
        StringBuilder b = new StringBuilder(12);
        if (x < 0 && units != 0) b.append('-');
        b.append(units / scale);
        if (digits > 0) {
            String frac = Long.toString(units % scale);
            b.append('.');
            for (int i = frac.length(); i < digits; i++) b.append('0');
            b.append(frac);
        }
        return b.toString();
    }
}
