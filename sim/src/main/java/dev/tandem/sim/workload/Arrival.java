package dev.tandem.sim.workload;

import java.util.Locale;

/** When jobs arrive: all at time 0 ({@code batch}) or as a Poisson process ({@code poisson:RATE}, jobs per hour). */
public sealed interface Arrival {
    record Batch() implements Arrival {
        @Override public String toString() { return "batch"; }
    }

    record Poisson(double jobsPerHour) implements Arrival {
        public Poisson {
            if (!(jobsPerHour > 0)) throw new IllegalArgumentException("Poisson rate must be positive, got " + jobsPerHour);
        }

        @Override public String toString() { return "poisson:" + jobsPerHour; }
    }

    static Arrival parse(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT);
        if (v.equals("batch")) return new Batch();
        if (v.startsWith("poisson:")) {
            try {
                return new Poisson(Double.parseDouble(v.substring("poisson:".length())));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("arrival '" + s + "': rate is not a number (e.g. poisson:12 for 12 jobs per hour)");
            }
        }
        throw new IllegalArgumentException("arrival '" + s + "' is neither 'batch' nor 'poisson:RATE' (jobs per hour)");
    }
}
