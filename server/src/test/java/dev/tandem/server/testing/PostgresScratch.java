package dev.tandem.server.testing;

import dev.tandem.server.store.Database;

import java.nio.file.Path;
import java.sql.Statement;

/** Empties the scratch PostgreSQL database that TANDEM_TEST_POSTGRES_URL names, before a test uses it. */
public final class PostgresScratch {
    private PostgresScratch() {}

    public static void reset(String url, Path dir) {
        try (Database db = Database.parse(url, dir)) {
            db.tx(c -> {
                try (Statement st = c.createStatement()) {
                    st.execute("DROP TABLE IF EXISTS user_events, pair_observations, oom_pairs, memory_estimates, profiles, job_events, jobs, users, "
                            + "flyway_schema_history, group_commit CASCADE"); // group_commit: DatabaseTest's own
                }
                return null;
            });
        }
    }
}
