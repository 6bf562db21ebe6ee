package dev.tandem.sim.engine;

import dev.tandem.core.policy.SchedulerSnapshot;

import java.util.Locale;

/**
 * What the scheduler knows about job length, a simulation parameter applied to every policy alike. Policies see a
 * job's length only through the remaining iterations in their snapshot; this decides what that number is.
 * <ul>
 * <li>{@code exact}: the true remaining work.</li>
 * <li>{@code noisy:SIGMA}: each job's total length is seen through a fixed log-normal error, {@code total x
 *     exp(SIGMA x Z)} with Z standard normal drawn once per job ({@link JobRandom}: its id and the seed), as a user's estimate
 *     would be; remaining = that estimate minus the work done, as the daemon shows a job that declared its length
 *     ({@code --iterations}). A job that outran its estimate is of unknown length from then on.</li>
 * <li>{@code none}: no length information: every job is of unknown length.</li>
 * </ul>
 * A job of unknown length is shown as needing as long as it has run, at least
 * {@link SchedulerSnapshot#UNKNOWN_LENGTH_FLOOR_SECONDS} ({@link SchedulerSnapshot#unknownLengthIterations}), the rule
 * the daemon applies to a job submitted without its length: so a policy that reads the number decides alike in both
 * worlds.
 */
public record Knowledge(Kind kind, double sigma) {
    public enum Kind { EXACT, NOISY, NONE }

    public static final Knowledge EXACT = new Knowledge(Kind.EXACT, 0);
    public static final Knowledge NONE = new Knowledge(Kind.NONE, 0);

    public Knowledge {
        if (kind == Kind.NOISY && !(sigma > 0 && sigma <= 5)) throw new IllegalArgumentException("--knowledge noisy:SIGMA needs 0 < SIGMA <= 5, got " + sigma);
    }

    public static Knowledge noisy(double sigma) { return new Knowledge(Kind.NOISY, sigma); }

    /**
     * Whether policies are told a job's length, having done {@code done} of its {@code total} iterations: not with
     * {@code none}, nor with {@code noisy} once the job has outrun its estimate (a scheduler then sees that the
     * declared length was wrong).
     */
    boolean lengthKnown(double total, double done, double factor) {
        return switch (kind) {
            case EXACT -> true;
            case NONE -> false;
            case NOISY -> done < factor * total;
        };
    }

    /**
     * The total length in iterations the job of {@code total} true iterations declares under this knowledge, drawn with
     * {@code seed} as the simulator draws it (what the policies are shown when it is new); NaN with {@code none}. What
     * {@code tandem submit --iterations} would say for it, for running a workload through the daemon.
     */
    public double declaredIterations(String jobId, double total, long seed) {
        return declared(total, lengthFactor(jobId, seed));
    }

    /** The total length a job declared (what the policies were shown when it was new), NaN with {@code none}. */
    double declared(double total, double factor) {
        return switch (kind) {
            case EXACT -> total;
            case NOISY -> factor * total;
            case NONE -> Double.NaN;
        };
    }

    /** {@code exact}, {@code none} or {@code noisy:SIGMA} (e.g. noisy:1). */
    public static Knowledge parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("exact")) return EXACT;
        if (t.equals("none")) return NONE;
        if (t.startsWith("noisy:")) {
            try {
                return noisy(Double.parseDouble(t.substring("noisy:".length())));
            } catch (NumberFormatException e) {
                // fall through to the message below
            }
        }
        throw new IllegalArgumentException("--knowledge must be exact, none or noisy:SIGMA (e.g. noisy:1), got '" + text + "'");
    }

    /** The factor on a job's total length this knowledge sees (1 unless noisy), fixed per job. */
    double lengthFactor(String jobId, long seed) {
        if (kind != Kind.NOISY) return 1;
        return Math.exp(sigma * JobRandom.of(seed, jobId).nextGaussian());
    }

    /**
     * The remaining iterations a policy sees.
     *
     * @param total     the job's true total work (iterations)
     * @param done      useful iterations done so far
     * @param extra     work it must repeat (restart overheads), known to the world
     * @param factor    {@link #lengthFactor} of the job
     * @param attained  the GPU-seconds it has received, on {@code gpus} GPUs at {@code soloSpeed}: what a job of
     *                  unknown length is shown to need ({@link SchedulerSnapshot#unknownLengthIterations})
     */
    double seenRemaining(double total, double done, double extra, double factor, double attained, int gpus, double soloSpeed) {
        if (!lengthKnown(total, done, factor)) return SchedulerSnapshot.unknownLengthIterations(attained, gpus, soloSpeed);
        return declared(total, factor) + extra - done;
    }

    @Override public String toString() {
        return switch (kind) {
            case EXACT -> "exact";
            case NONE -> "none";
            case NOISY -> "noisy:" + (sigma == Math.rint(sigma) ? Long.toString((long) sigma) : Double.toString(sigma));
        };
    }
}
