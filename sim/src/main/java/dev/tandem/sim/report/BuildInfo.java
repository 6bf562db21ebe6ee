package dev.tandem.sim.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Which tandem computed a result: its version and the git commit it was built from (written at build time by the
 * git-commit-id plugin into {@code tandem/build.properties}; "unknown" when built outside a git checkout), and
 * whether the working tree had uncommitted changes.
 */
public final class BuildInfo {
    private BuildInfo() {}

    public static Map<String, Object> describe() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/tandem/build.properties")) {
            if (in != null) p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read tandem/build.properties: " + e.getMessage(), e);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", p.getProperty("git.build.version", "unknown"));
        m.put("commit", p.getProperty("git.commit.id.abbrev", "unknown"));
        m.put("commit_time", p.getProperty("git.commit.time", "unknown"));
        m.put("uncommitted_changes", Boolean.parseBoolean(p.getProperty("git.dirty", "false")));
        return m;
    }
}
