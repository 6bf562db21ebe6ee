package dev.tandem.server.store;

import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One JDBC connection to SQLite (embedded, WAL mode) or PostgreSQL, migrated by Flyway on open. The daemon is
 * the only writer and its transactions are short, so one connection used under a lock is enough and keeps
 * SQLite free of "database is locked" errors; a broken PostgreSQL connection is reopened on next use.
 *
 * <p>Group commit: the transactions callers ask for while another one runs wait in a queue, and the next caller to
 * hold the lock runs them all in one database transaction, each inside a savepoint of its own (a failing one is rolled
 * back alone and its caller gets the error), and commits once. Every caller returns only after the commit that holds
 * its work (or with its error), so an acknowledged write is durable as before; under a flood of submissions from
 * many clients one commit (on PostgreSQL one WAL flush) serves many of them.
 */
public final class Database implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Database.class);

    public enum Kind { SQLITE, POSTGRESQL }

    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private final Kind kind;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String description;
    private final ReentrantLock lock = new ReentrantLock();
    private Connection connection;
    /** This daemon holds the store's advisory lock (PostgreSQL), and takes it again on each new connection. */
    private volatile boolean daemonLock;

    private Database(Kind kind, String jdbcUrl, String user, String password, String description) {
        this.kind = kind;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.description = description;
    }

    /**
     * Opens the store named by {@code spec}: empty for {@code STATE_DIR/tandem.db}, {@code sqlite:PATH}, or
     * {@code postgresql://user:password@host:port/database}.
     */
    public static Database open(String spec, Path stateDir) {
        Database db = parse(spec, stateDir);
        db.migrate();
        return db;
    }

    /** As {@link #open}, without migrating: the connection is made on first use. */
    public static Database parse(String spec, Path stateDir) {
        if (spec == null || spec.isBlank()) spec = "sqlite:" + stateDir.resolve("tandem.db");
        if (spec.startsWith("sqlite:")) {
            String file = spec.substring("sqlite:".length());
            if (file.isBlank()) throw new IllegalArgumentException("--store: sqlite: needs a file path, e.g. sqlite:/var/lib/tandem/tandem.db");
            return new Database(Kind.SQLITE, "jdbc:sqlite:" + file, null, null, "sqlite:" + file);
        }
        if (spec.startsWith("postgresql://") || spec.startsWith("postgres://")) {
            URI u;
            try {
                u = URI.create(spec);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--store: not a valid URL: " + e.getMessage());
            }
            if (u.getHost() == null || u.getPath() == null || u.getPath().length() < 2) {
                throw new IllegalArgumentException("--store: expected postgresql://user:password@host:port/database");
            }
            String user = null, password = null;
            if (u.getRawUserInfo() != null) {
                String[] parts = u.getRawUserInfo().split(":", 2);
                user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
                if (parts.length == 2) password = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
            }
            String hostPort = u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "");
            String query = u.getRawQuery() == null ? "" : "?" + u.getRawQuery();
            // the password is kept out of the description, which is what logs show
            return new Database(Kind.POSTGRESQL, "jdbc:postgresql://" + hostPort + u.getRawPath() + query, user, password,
                    "postgresql://" + (user == null ? "" : user + "@") + hostPort + u.getRawPath());
        }
        throw new IllegalArgumentException("--store: expected sqlite:PATH or postgresql://user:password@host:port/database, got '" + redact(spec) + "'");
    }

    private static String redact(String spec) {
        return spec.replaceAll("//([^:/@]*):[^@]*@", "//$1:***@");
    }

    /**
     * A new SQLite file is created mode 0600 before SQLite opens it (SQLite gives its -wal and -shm files the same
     * mode): the store holds every job's argv and environment.
     */
    private void createPrivately() {
        if (kind != Kind.SQLITE) return;
        Path file = Path.of(jdbcUrl.substring("jdbc:sqlite:".length()));
        if (Files.exists(file)) return;
        try {
            if (file.getParent() != null) Files.createDirectories(file.getParent());
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // created meanwhile: SQLite opens it
        } catch (IOException e) {
            throw new StoreException("store " + description + ": cannot create it: " + e.getMessage(), e);
        }
    }

    /**
     * Fails when another process writes this store. SQLite: another process holds the file's write lock, which the
     * daemon would otherwise find only at its first write (after {@code busy_timeout}). PostgreSQL: another daemon
     * holds the store's advisory lock, which this one then takes and keeps (taken again after a reconnection). The
     * daemon keeps its jobs in memory and writes them through, so two daemons on one store would not see each other.
     */
    public void checkWritable() {
        if (kind == Kind.POSTGRESQL) {
            tx(c -> {
                takeDaemonLock(c);
                return null;
            });
            daemonLock = true;
            return;
        }
        tx(c -> {
            try (var s = c.createStatement()) {
                s.execute("DELETE FROM flyway_schema_history WHERE 0"); // takes the write lock, changes nothing
            }
            return null;
        });
    }

    /** Brings the schema up to date (Flyway); the first connection is made here. */
    public void migrate() {
        createPrivately();
        String idPk = kind == Kind.SQLITE ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY";
        var result = Flyway.configure(Database.class.getClassLoader())
                .dataSource(jdbcUrl, user, password)
                .locations("classpath:db/migration")
                .placeholders(Map.of("id_pk", idPk))
                .load()
                .migrate();
        log.info("store {} at schema version {} ({} migration(s) applied)", description,
                result.targetSchemaVersion == null ? "current" : result.targetSchemaVersion, result.migrationsExecuted);
    }

    public Kind kind() { return kind; }

    public String description() { return description; }

    /** Runs {@code work} in one transaction. */
    public <T> T tx(Work<T> work) {
        return tx(work, t -> { });
    }

    /**
     * Runs {@code work} in one transaction, then {@code committed} with its result after the commit and before the
     * lock is released: what the store keeps in memory follows the database in commit order. Not run when the
     * transaction fails. The transaction may be shared with others asked for at the same time (see the class).
     */
    public <T> T tx(Work<T> work, java.util.function.Consumer<? super T> committed) {
        if (lock.isHeldByCurrentThread()) throw new IllegalStateException("a store transaction inside another one");
        Pending<T> mine = new Pending<>(work, committed);
        waiting.add(mine);
        lock.lock();
        try {
            while (!mine.done) runBatch();
        } finally {
            lock.unlock();
        }
        if (mine.failure != null) throw mine.failure;
        return mine.result;
    }

    /** Callers' transactions run, and database commits made for them (fewer when they shared commits). */
    private final java.util.concurrent.atomic.AtomicLong transactions = new java.util.concurrent.atomic.AtomicLong(),
            commits = new java.util.concurrent.atomic.AtomicLong();

    /** Callers' transactions run so far (committed or failed). */
    public long transactions() { return transactions.get(); }

    /** Database commits so far: each holds one or more callers' transactions. */
    public long commits() { return commits.get(); }

    /** Batches begun (written and read under the lock). */
    private long batchesBegun;

    /**
     * The number of the batch that runs: for work that keeps, beside the database, what the earlier parts of its
     * batch wrote (a part that ran successfully is undone only with its whole batch, never alone). Read only from a
     * transaction's work.
     */
    public long batch() {
        if (!lock.isHeldByCurrentThread()) throw new IllegalStateException("the running batch is known only inside a transaction");
        return batchesBegun;
    }

    /** Callers' transactions waiting for the lock (for tests). */
    int waitingTransactions() { return waiting.size(); }

    /** Transactions asked for, in order, not yet run; taken by whoever holds the lock. */
    private final java.util.concurrent.ConcurrentLinkedQueue<Pending<?>> waiting = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** At most this many callers' transactions share one commit (a commit's size stays that of a few submissions). */
    static final int MAX_BATCH = 64;

    /** A caller's transaction and, once run, its outcome (written and read under the lock). */
    private final class Pending<T> {
        final Work<T> work;
        final java.util.function.Consumer<? super T> committed;
        T result;
        RuntimeException failure;
        boolean done;

        Pending(Work<T> work, java.util.function.Consumer<? super T> committed) {
            this.work = work;
            this.committed = committed;
        }

        void run(Connection c) throws SQLException { result = work.run(c); }

        /** After the commit, in commit order. */
        void commit() {
            try {
                committed.accept(result);
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        void fail(Exception e) {
            failure = e instanceof RuntimeException r ? r : new StoreException("store " + description + ": " + e.getMessage(), e);
        }
    }

    /** Runs the waiting transactions (up to {@link #MAX_BATCH}) in one database transaction. Under the lock. */
    private void runBatch() {
        batchesBegun++;
        List<Pending<?>> batch = new ArrayList<>();
        for (Pending<?> p; batch.size() < MAX_BATCH && (p = waiting.poll()) != null; ) batch.add(p);
        if (batch.isEmpty()) return;
        List<Pending<?>> ran = new ArrayList<>(batch.size());
        try {
            Connection c = connection();
            c.setAutoCommit(false);
            try {
                for (Pending<?> p : batch) {
                    // alone, a failure rolls the whole transaction back (no savepoint to pay for); together, only its own part
                    Savepoint before = batch.size() > 1 ? c.setSavepoint() : null;
                    try {
                        p.run(c);
                    } catch (SQLException | RuntimeException e) {
                        if (before != null) c.rollback(before);
                        else c.rollback();
                        p.fail(e);
                        continue;
                    }
                    // outside the part's own failure: a part that ran is undone only with the whole batch, so the parts
                    // after it may rely on what it wrote (the store validates them against its rows in memory)
                    if (before != null) c.releaseSavepoint(before);
                    ran.add(p);
                }
                c.commit();
                commits.incrementAndGet();
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
            for (Pending<?> p : ran) p.commit();
        } catch (SQLException | RuntimeException e) {
            for (Pending<?> p : batch) if (p.failure == null) p.fail(e); // nothing of the batch was committed
        } finally {
            for (Pending<?> p : batch) p.done = true;
            transactions.addAndGet(batch.size());
        }
    }

    /** The key of the PostgreSQL advisory lock a daemon holds on its store ("tandem" in ASCII). */
    private static final long DAEMON_LOCK_KEY = 0x74616e64656dL;

    private void takeDaemonLock(Connection c) throws SQLException {
        try (var ps = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            ps.setLong(1, DAEMON_LOCK_KEY);
            try (var rs = ps.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    throw new SQLException("another tandem daemon uses this store (it holds the store's lock); one daemon per store");
                }
            }
        }
    }

    private Connection connection() throws SQLException {
        // a thread still at work after the daemon closed its store must not open it again (and, on SQLite, create its
        // files again in a state directory being removed)
        if (closed) throw new SQLException("the store is closed");
        if (connection != null && kind == Kind.POSTGRESQL && !connection.isValid(2)) {
            log.warn("store {}: connection lost, reconnecting", description);
            closeQuietly();
        }
        if (connection == null) {
            connection = user == null ? DriverManager.getConnection(jdbcUrl) : DriverManager.getConnection(jdbcUrl, user, password);
            if (kind == Kind.SQLITE) {
                try (Statement s = connection.createStatement()) {
                    // WAL: readers do not block the writer; NORMAL sync survives a crash of the daemon (kill -9),
                    // only a power cut can lose the last commits
                    s.execute("PRAGMA journal_mode=WAL");
                    s.execute("PRAGMA synchronous=NORMAL");
                    s.execute("PRAGMA foreign_keys=ON");
                    s.execute("PRAGMA busy_timeout=10000");
                }
            }
            if (daemonLock) {
                try {
                    takeDaemonLock(connection);
                } catch (SQLException e) {
                    closeQuietly();
                    throw e;
                }
            }
        }
        return connection;
    }

    private void closeQuietly() {
        try {
            if (connection != null) connection.close();
        } catch (SQLException ignored) {
            // the connection is being replaced or the store is closing: nothing left to do with it
        }
        connection = null;
    }

    /** Set by {@link #close()}: no transaction opens the store again. */
    private volatile boolean closed;

    /**
     * Closes the connection; on PostgreSQL the daemon's lock on the store is given back first, so that a daemon started
     * right after this one stops is not refused (the server drops a closed session's locks only once it has noticed).
     */
    @Override public void close() {
        lock.lock();
        try {
            closed = true;
            if (daemonLock && connection != null) {
                // all of them: the lock is taken again on every check and new connection, and each taking counts
                try (var ps = connection.prepareStatement("SELECT pg_advisory_unlock_all()")) {
                    ps.execute();
                } catch (SQLException e) {
                    log.debug("store {}: giving back the daemon's lock failed ({}); the server drops it with the session", description, e.getMessage());
                }
            }
            closeQuietly();
        } finally {
            lock.unlock();
        }
    }
}
