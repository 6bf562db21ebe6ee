package dev.tandem.sim.trace;

import dev.tandem.data.DataSource;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** Where the tests find real traces, samples and scratch files. */
final class TraceFixtures {
    private TraceFixtures() {}

    /**
     * A file of the project's shared data folder, {@code ../../shared/data} from the sim module (or
     * {@code $TANDEM_SHARED_DATA}); the test is skipped when the data is not there.
     */
    static DataSource shared(String relative) {
        String env = System.getenv("TANDEM_SHARED_DATA");
        Path base = env != null && !env.isBlank() ? Path.of(env) : Path.of("../../shared/data");
        Path p = base.resolve(relative);
        Assumptions.assumeTrue(Files.exists(p), "real trace not available: " + p);
        return DataSource.of(p);
    }

    /** A sample under src/test/resources/traces. */
    static DataSource sample(String name) {
        try {
            return DataSource.of(Path.of(TraceFixtures.class.getResource("/traces/" + name).toURI()));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static DataSource file(Path dir, String name, String content) {
        try {
            Path p = dir.resolve(name);
            Files.writeString(p, content);
            return DataSource.of(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static double epoch(String yyyyMmDdHhMmSs) {
        return LocalDateTime.parse(yyyyMmDdHhMmSs.replace(' ', 'T')).toEpochSecond(ZoneOffset.UTC);
    }
}
