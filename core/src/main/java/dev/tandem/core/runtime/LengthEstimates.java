package dev.tandem.core.runtime;

/**
 * Whether the lengths jobs declare are worth ranking jobs by, learned as jobs arrive and finish. A declaration is
 * the job's true length times an error; what matters is how large the error is against how much jobs differ: an
 * error of a factor of two hides little among jobs of minutes to weeks, and most of the order among jobs that all
 * run a few hours. So two things are kept: the spread of declared lengths (the variance of ln(declared) over the last
 * {@link #DECLARED_WINDOW} jobs that declared one on arrival) and the errors of the jobs that finished (the mean of
 * ln(actual / declared)^2 over the last {@link #ERROR_WINDOW}). Declared lengths lose trust when the errors account for
 * more than {@link #DISTRUST_ABOVE} of the spread, and regain it below {@link #TRUST_BELOW}; until {@link #MIN_SAMPLES}
 * jobs have arrived and as many have finished there is nothing to judge by, and they are trusted.
 *
 * <p>Why a policy cares: tandem's rules for the end of a batch (longest first at the latest start, the critical path,
 * the plan's horizon) are only as good as the lengths they read, and once it stops trusting them it ranks by attained
 * service instead. On the demo (200 jobs of 0.5-16 h, 8 GPUs, seeds 1-6) a build that ignored lengths seen through a
 * log-normal error from the start kept 95.4% of tandem's exact-length gain over FIFO at every sigma; using them kept
 * 96.5% at sigma 0.25 (error share 6%), 93.7% at 0.5 (20%), 92.9% at 0.75 (36%) and about 90% at 1 (50%). On the
 * Philly replay (82,247 jobs of seconds to weeks) an error of sigma 1 is about a fifth of the spread, and a build that
 * stopped trusting lengths at a fixed error there (0.35, whatever the spread) had twice the mean JCT (18.9 h against
 * 9.4 h). The bounds sit between. The spread is measured over many arrivals: users submit in bursts of alike jobs,
 * and over Philly's last 1,024 arrivals it moved between 2.5 and 4.5 (all jobs: 5.6).
 *
 * <p>Both worlds feed it the same way: the simulator as jobs arrive and complete, the daemon as it first sees a
 * submitted job and when a job that gave {@code --iterations} exits with code 0 having reported its progress (and, at
 * start-up, from the store's most recent such jobs, oldest first, so that a restart keeps what was learned).
 */
public final class LengthEstimates {
    /** Declarations the spread is measured on, the most recent ones. */
    public static final int DECLARED_WINDOW = 16_384;
    /** Finished jobs the error is measured on, the most recent ones: users' habits change. */
    static final int ERROR_WINDOW = 1024;
    /** Arrivals and finished jobs needed before declarations can lose trust. */
    static final int MIN_SAMPLES = 10;
    /** Trusted declarations lose trust when the errors account for more than this share of the declared lengths' spread... */
    static final double DISTRUST_ABOVE = 1.0 / 3;
    /**
     * ...and regain it only below this share: estimated from a few hundred jobs, a share near one bound moves across it
     * and back (on the Philly replay with sigma 1 it wandered between 0.23 and 0.28), and each change re-ranks the queue.
     */
    static final double TRUST_BELOW = 0.25;

    private final Window declared = new Window(DECLARED_WINDOW);
    private final Window errors = new Window(ERROR_WINDOW);
    private boolean trusted = true;

    /**
     * A job arrived declaring a length of {@code soloSeconds} (its declared work at its solo speed: jobs are compared by
     * time, not by iterations, whose rate differs a hundredfold between workloads). Ignored unless positive and finite.
     */
    public void arrived(double soloSeconds) {
        if (!usable(soloSeconds)) return;
        declared.add(Math.log(soloSeconds));
        judge();
    }

    /**
     * A job finished: it had declared {@code declaredWork} units of work and did {@code actualWork}. Ignored unless
     * both are positive and finite.
     */
    public void finished(double declaredWork, double actualWork) {
        if (!usable(declaredWork) || !usable(actualWork)) return;
        double error = Math.log(actualWork / declaredWork);
        errors.add(error * error);
        judge();
    }

    private static boolean usable(double v) {
        return v > 0 && !Double.isInfinite(v);
    }

    private void judge() {
        if (declared.count() < MIN_SAMPLES || errors.count() < MIN_SAMPLES) {
            trusted = true;
            return;
        }
        double share = errors.mean() / declared.variance(); // infinite where every declaration is the same
        trusted = trusted ? !(share > DISTRUST_ABOVE) : share < TRUST_BELOW;
    }

    /** Whether policies should take declared lengths as they are (see the class comment). */
    public boolean trusted() { return trusted; }

    /** Declarations the spread is measured on (at most {@link #DECLARED_WINDOW}). */
    public int declarations() { return declared.count(); }

    /** Finished jobs judged on (at most {@link #ERROR_WINDOW}). */
    public int samples() { return errors.count(); }

    /** The root-mean-square error of ln(actual / declared) over the finished jobs judged on, NaN before any finished. */
    public double rmsLogError() {
        return errors.count() == 0 ? Double.NaN : Math.sqrt(errors.mean());
    }

    /** The errors' share of the declared lengths' spread (mean squared error over the variance of ln(declared)). */
    public double errorShare() {
        return errors.count() == 0 || declared.count() < 2 ? Double.NaN : errors.mean() / declared.variance();
    }

    /** The last {@code size} values added, with their sum and sum of squares (re-added now and then: no drift). */
    private static final class Window {
        private final double[] values;
        private int count, next;
        private double sum, sumSquares;

        Window(int size) {
            values = new double[size];
        }

        void add(double v) {
            if (count == values.length) {
                double old = values[next];
                sum -= old;
                sumSquares -= old * old;
            } else {
                count++;
            }
            values[next] = v;
            sum += v;
            sumSquares += v * v;
            next = (next + 1) % values.length;
            if (count == values.length && next == 0) resum(); // over millions of jobs a running sum drifts
        }

        private void resum() {
            sum = sumSquares = 0;
            for (double v : values) {
                sum += v;
                sumSquares += v * v;
            }
        }

        int count() { return count; }

        double mean() { return sum / count; }

        /** The population variance, at least 0. */
        double variance() {
            double m = sum / count;
            return Math.max(0, sumSquares / count - m * m);
        }
    }
}
