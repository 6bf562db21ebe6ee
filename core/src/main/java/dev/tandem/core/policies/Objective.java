package dev.tandem.core.policies;

import java.util.Arrays;
import java.util.Locale;

/**
 * What tandem's policy optimises when it orders the queue (pairing always follows the compatibility metric).
 * <ul>
 *   <li>{@code makespan}: submission order, longest first among jobs submitted together (LPT): the batch ends
 *       soonest, short jobs wait behind long ones.</li>
 *   <li>{@code jct}: shortest expected remaining time first (least attained service first where lengths look alike),
 *       as SRTF and Tiresias do: the least mean completion time, long jobs may end the batch late.</li>
 *   <li>{@code balanced}: shortest first, but a job whose latest start under the plan has come (it needs most of
 *       the plan's remaining horizon alone) goes first, longest first, so that the batch still ends by the plan.</li>
 * </ul>
 */
public enum Objective {
    MAKESPAN, JCT, BALANCED;

    public static Objective parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("objective must be one of " + String.join(", ", names()) + ", got '" + text + "'");
        }
    }

    public static String[] names() {
        return Arrays.stream(values()).map(Objective::toString).toArray(String[]::new);
    }

    @Override public String toString() { return name().toLowerCase(Locale.ROOT); }
}
