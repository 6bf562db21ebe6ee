package dev.tandem.server.store;

import dev.tandem.server.testing.PostgresScratch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Group commit: transactions asked for together share one commit, and a failing one takes only itself down. */
class DatabaseTest {
    @TempDir Path dir;

    @Test
    void transactionsAskedForTogetherShareACommitAndOneThatFailsIsRolledBackAlone() throws Exception {
        groupCommit(Database.open(null, dir));
    }

    /** The same on PostgreSQL, whose transaction is unusable after an error until rolled back to a savepoint. */
    @Test
    @EnabledIfEnvironmentVariable(named = "TANDEM_TEST_POSTGRES_URL", matches = "postgres.*")
    void postgresqlSharesCommitsTheSameWay() throws Exception {
        PostgresScratch.reset(System.getenv("TANDEM_TEST_POSTGRES_URL"), dir);
        groupCommit(Database.open(System.getenv("TANDEM_TEST_POSTGRES_URL"), dir));
    }

    private static void groupCommit(Database opened) throws Exception {
        try (Database db = opened) {
            db.tx(c -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS group_commit");
                    s.execute("CREATE TABLE group_commit (k INTEGER PRIMARY KEY)");
                    s.execute("INSERT INTO group_commit VALUES (7)");
                }
                return null;
            });
            long commitsBefore = db.commits(), transactionsBefore = db.transactions();
            CountDownLatch holding = new CountDownLatch(1), release = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(9);
            try {
                // one transaction holds the store while eight more are asked for: keys 1..8, of which 7 already exists
                Future<?> first = pool.submit(() -> db.tx(c -> {
                    holding.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return insert(c, 100);
                }));
                holding.await();
                List<Integer> committed = java.util.Collections.synchronizedList(new ArrayList<>());
                List<Future<Integer>> rest = new ArrayList<>();
                for (int k = 1; k <= 8; k++) {
                    int key = k;
                    rest.add(pool.submit(() -> db.tx(c -> insert(c, key), committed::add)));
                }
                while (db.waitingTransactions() < 8) Thread.sleep(1);
                release.countDown();
                first.get(10, TimeUnit.SECONDS);
                for (int k = 1; k <= 8; k++) {
                    Future<Integer> f = rest.get(k - 1);
                    if (k == 7) {
                        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreException.class)
                                .hasMessageContaining("store ").hasMessageContaining("group_commit");
                    } else {
                        assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(k);
                    }
                }
                assertThat(committed).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 8);
            } finally {
                pool.shutdownNow();
            }
            assertThat(db.transactions() - transactionsBefore).isEqualTo(9);
            assertThat(db.commits() - commitsBefore).as("the eight waiting shared one commit").isEqualTo(2);
            List<Integer> stored = db.tx(c -> {
                List<Integer> keys = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement("SELECT k FROM group_commit ORDER BY k"); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) keys.add(rs.getInt(1));
                }
                return keys;
            });
            assertThat(stored).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 100);
            db.tx(c -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE group_commit"); // a scratch PostgreSQL database must be left with the store's tables only
                }
                return null;
            });
        }
    }

    @Test
    void aTransactionInsideAnotherIsRefused() throws Exception {
        try (Database db = Database.open(null, dir)) {
            assertThatThrownBy(() -> db.tx(c -> db.tx(inner -> 1))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("inside another");
        }
    }

    private static int insert(java.sql.Connection c, int key) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO group_commit VALUES (?)")) {
            ps.setInt(1, key);
            ps.executeUpdate();
        }
        return key;
    }
}
