package dev.tandem.server.sched;

import dev.tandem.core.model.JobProfile;
import dev.tandem.data.DataFormatException;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;

import java.util.List;

/**
 * Solo profiles the daemon knows before it measures anything ({@code serve --known-profiles}): a job whose workload
 * signature is among them is not profiled alone first and may share its GPU at once. {@code bundled} is Lucid's
 * measured profiles (RTX 3090), the data {@code tandem simulate} uses; a file in the same format (Lucid's CSV or
 * tandem's JSON) holds a site's own, e.g. measured on its GPUs; {@code none} profiles every new workload. A profile
 * measured here always replaces a known one, and the speeds of co-located jobs are judged only against a solo speed
 * measured here (a job that runs alone long enough measures it without holding back pairing).
 */
public final class KnownProfiles {
    private KnownProfiles() {}

    /** @throws IllegalArgumentException naming the file, line and field of a bad profile, or a missing file */
    public static List<JobProfile> load(String spec) {
        if (spec == null || spec.equals("none")) return List.of();
        DataSource src = spec.equals("bundled") ? DataSource.LUCID_PROFILES : DataSource.of(spec);
        try {
            return ProfileReader.read(src, 0);
        } catch (DataFormatException e) {
            throw new IllegalArgumentException("--known-profiles: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--known-profiles " + spec + ": " + e.getMessage(), e);
        }
    }
}
