package dev.tandem.sim.workload;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.BiPredicate;

/**
 * Draws a seeded workload from a profile set: each job gets a gang size from the mix, a workload drawn
 * uniformly from the profiles that support that size, a log-uniform solo duration (turned into iterations by
 * the profile's solo speed) and an arrival time. The same spec and profiles always give the same jobs.
 */
public final class WorkloadGenerator {
    private WorkloadGenerator() {}

    /** @param supportsSize whether a profile may be used for a gang of the given size (e.g. Gavel's scales) */
    public static List<Job> generate(WorkloadSpec spec, List<JobProfile> profiles, BiPredicate<JobProfile, Integer> supportsSize) {
        if (profiles.isEmpty()) throw new IllegalArgumentException("no profiles to draw jobs from");
        SplittableRandom rnd = new SplittableRandom(spec.seed());
        List<Job> jobs = new ArrayList<>(spec.jobs());
        double t = 0;
        int width = String.valueOf(spec.jobs()).length();
        for (int i = 0; i < spec.jobs(); i++) {
            int size = spec.sizes().draw(rnd);
            List<JobProfile> fit = profiles.stream().filter(p -> supportsSize.test(p, size)).toList();
            if (fit.isEmpty()) throw new IllegalArgumentException("no profile supports gangs of " + size + " GPUs");
            JobProfile p = fit.get(rnd.nextInt(fit.size()));
            double lo = Math.log(spec.minDurationS()), hi = Math.log(spec.maxDurationS());
            double duration = Math.exp(lo + (hi - lo) * rnd.nextDouble());
            if (spec.arrival() instanceof Arrival.Poisson(double perHour)) {
                t += -Math.log(1 - rnd.nextDouble()) * 3600.0 / perHour;
            }
            String id = String.format(Locale.ROOT, "j%0" + width + "d", i);
            long mem = p.hasMemory() ? Math.round(p.gmemMiB()) : 0;
            jobs.add(new Job(id, "user" + (i % 4), t, size, p.signature(), duration * p.soloSpeed(), mem, 0));
        }
        return jobs;
    }
}
