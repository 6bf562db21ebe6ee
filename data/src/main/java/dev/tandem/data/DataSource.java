package dev.tandem.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A named input: a file, or a data set bundled in the jar ({@code bundled:lucid/single_profiles.csv}).
 * The name is what error messages show.
 */
public record DataSource(String name) {
    public static final String BUNDLED = "bundled:";
    public static final DataSource LUCID_PROFILES = new DataSource(BUNDLED + "lucid/single_profiles.csv");
    public static final DataSource LUCID_PAIRS = new DataSource(BUNDLED + "lucid/colocation_pairs.csv");
    public static final DataSource GAVEL_THROUGHPUTS = new DataSource(BUNDLED + "gavel/simulation_throughputs.json");

    public static DataSource of(String nameOrPath) { return new DataSource(nameOrPath); }

    public static DataSource of(Path p) { return new DataSource(p.toString()); }

    public boolean bundled() { return name.startsWith(BUNDLED); }

    public boolean isJson() { return name.toLowerCase(java.util.Locale.ROOT).endsWith(".json"); }

    public Reader open() {
        try {
            if (bundled()) {
                String res = "/tandem/data/" + name.substring(BUNDLED.length());
                InputStream in = DataSource.class.getResourceAsStream(res);
                if (in == null) throw new DataFormatException(name, 0, null, "no such bundled data set");
                return new InputStreamReader(in, StandardCharsets.UTF_8);
            }
            return Files.newBufferedReader(Path.of(name), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new DataFormatException(name, 0, null, "file not found");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name + ": " + e.getMessage(), e);
        }
    }

    @Override public String toString() { return name; }
}
