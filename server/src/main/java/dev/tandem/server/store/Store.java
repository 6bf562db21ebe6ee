package dev.tandem.server.store;

import dev.tandem.core.runtime.OutOfMemoryRule;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Everything tandem serve keeps: users, jobs with their full transition history, solo profiles, and what
 * crashes and co-location taught. Plain JDBC on {@link Database}; every job transition and its event are
 * written in one transaction, so the history never disagrees with the job. The unfinished jobs and the count of
 * jobs per state are also kept in memory ({@link LiveJobs}, written through after each commit), so that the
 * scheduler's rounds and the API's reads of the queue do not query the database; it is read at open, for recovery.
 * For an unfinished job memory is what counts: a write is checked against its row there and the new row worked out
 * there ({@link JobRows}), and the database, written in the same transaction, is the journal that recovery reads.
 */
public final class Store implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JOB_COLUMNS = "id, owner, name, argv, env, workdir, gpus, memory_mib, iterations, sig_model, sig_dataset, "
            + "sig_batch, sig_amp, state, attempts, exclusive, gpu_ids, pid, pid_started, exit_code, progress_iter, attained_gpu_ms, "
            + "predicted_speed, observed_speed, submitted_at, queued_at, started_at, finished_at, updated_at, reason, time_limit_ms, "
            + "priority, depends_on, held, array_job, array_index, partners, first_started_at, limit_host_memory_mib, limit_processes, output";

    /** A measured co-location, as stored. */
    public record Observation(WorkloadSignature a, WorkloadSignature b, int gpus, double speedA, double speedB) {}

    private final Database db;
    private final LiveJobs live = new LiveJobs();

    /** A job row as a transaction wrote it, with the job's state before the write (null for a new job). */
    private record Written(JobState from, JobRecord row) {}

    /** A transaction that writes jobs and lists each one it wrote in {@code written}. */
    @FunctionalInterface
    private interface JobWork<T> {
        T run(Connection c, List<Written> written) throws SQLException;
    }

    /** The users, by name and by token hash: every request's authentication reads them, so they are in memory too. */
    private record Users(Map<String, User> byName, Map<String, User> byTokenHash) {}

    private volatile Users users;

    public Store(Database db) {
        this.db = db;
        db.tx(c -> {
            live.load(jobsWhere(c, null, JobState.NOT_TERMINAL, 0, Integer.MAX_VALUE), countByState(c));
            users = loadUsers(c);
            return null;
        });
    }

    /** Runs a transaction that writes users; after its commit the users in memory are those it left. */
    private <T> T writeUsers(Database.Work<T> work) {
        Users[] after = new Users[1];
        return db.tx(c -> {
            T t = work.run(c);
            after[0] = loadUsers(c);
            return t;
        }, t -> users = after[0]);
    }

    private static Users loadUsers(Connection c) throws SQLException {
        Map<String, User> byName = new java.util.TreeMap<>(), byToken = new java.util.HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + USER_COLUMNS + ", token_hash FROM users"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                User u = user(rs);
                byName.put(u.name(), u);
                byToken.put(rs.getString(7), u);
            }
        }
        return new Users(java.util.Collections.unmodifiableMap(byName), Map.copyOf(byToken));
    }

    /**
     * Runs a transaction that writes jobs; after its commit the rows it wrote replace their in-memory copies. The work
     * reads jobs with {@link #current} and lists each row it wrote, as worked out in memory ({@link JobRows}), in
     * {@code written}: rows are never read back from the database.
     */
    private <T> T writeJobs(JobWork<T> work) {
        List<Written> written = new ArrayList<>();
        return db.tx(c -> {
            T t = work.run(c, written);
            Map<Long, JobRecord> mine = rowsOfThisBatch();
            for (Written w : written) mine.put(w.row().id(), w.row());
            return t;
        }, t -> {
            for (Written w : written) {
                if (w.from() == null) live.inserted(w.row());
                else live.changed(w.from(), w.row());
            }
        });
    }

    /**
     * Rows written by the parts of the running batch that ran before ({@link Database#tx} may run several callers'
     * transactions in one): not yet committed, so not yet in {@link #live}, but what a later part must be checked
     * against (a cancel and a start of the same job in one batch). A part that ran is undone only with its whole
     * batch, and then this map belongs to a batch that is over. Used under the database's lock only.
     */
    private final Map<Long, JobRecord> batchRows = new java.util.HashMap<>();
    private long batchRowsOf = -1;

    private Map<Long, JobRecord> rowsOfThisBatch() {
        long batch = db.batch();
        if (batch != batchRowsOf) {
            batchRows.clear();
            batchRowsOf = batch;
        }
        return batchRows;
    }

    /**
     * A job's row as a transaction that writes jobs must see it: as an earlier part of its batch left it, else as
     * committed (an unfinished job from memory, the state every write is validated against; a finished one from the
     * database, where nothing changes it any more). Empty when there is no such job.
     */
    private Optional<JobRecord> current(Connection c, long id) throws SQLException {
        JobRecord r = rowsOfThisBatch().get(id);
        if (r != null) return Optional.of(r);
        Optional<JobRecord> unfinished = live.unfinished(id);
        return unfinished.isPresent() ? unfinished : jobRow(c, id);
    }

    public Database database() { return db; }

    // ---- users

    /** Whether any user is an admin (from memory). */
    public boolean anyAdmin() {
        return users.byName().values().stream().anyMatch(User::admin);
    }

    /** Creates a user, recorded in the audit trail as created by {@code actor}; false when the name is taken. */
    public boolean createUser(String name, Role role, String tokenHash, String unixUser, String actor, long now) {
        return writeUsers(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM users WHERE name = ?")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) return false;
                }
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO users (name, role, token_hash, unix_user, created_at) VALUES (?, ?, ?, ?, ?)")) {
                ps.setString(1, name);
                ps.setString(2, role.dbName());
                ps.setString(3, tokenHash);
                ps.setString(4, unixUser);
                ps.setLong(5, now);
                ps.executeUpdate();
            }
            userEvent(c, name, actor, "created", role.dbName() + ", Unix account " + (unixUser == null ? "the daemon's" : unixUser), now);
            return true;
        });
    }

    private static void userEvent(Connection c, String name, String actor, String action, String detail, long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO user_events (at, actor, user_name, action, detail) VALUES (?, ?, ?, ?, ?)")) {
            ps.setLong(1, now);
            ps.setString(2, actor);
            ps.setString(3, name);
            ps.setString(4, action);
            ps.setString(5, detail);
            ps.executeUpdate();
        }
    }

    /** Disables or enables a user; false when there is no such user. Unchanged state is not recorded again. */
    public boolean setDisabled(String name, boolean disabled, String actor, long now) {
        return writeUsers(c -> {
            Optional<User> u = userWhere(c, "name", name);
            if (u.isEmpty()) return false;
            if (u.get().disabled() == disabled) return true;
            try (PreparedStatement ps = c.prepareStatement("UPDATE users SET disabled = ? WHERE name = ?")) {
                ps.setInt(1, disabled ? 1 : 0);
                ps.setString(2, name);
                ps.executeUpdate();
            }
            userEvent(c, name, actor, disabled ? "disabled" : "enabled", "", now);
            return true;
        });
    }

    /** Replaces a user's token; false when there is no such user. */
    public boolean rotateToken(String name, String tokenHash, String actor, long now) {
        return writeUsers(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE users SET token_hash = ? WHERE name = ?")) {
                ps.setString(1, tokenHash);
                ps.setString(2, name);
                if (ps.executeUpdate() == 0) return false;
            }
            userEvent(c, name, actor, "token-rotated", "the old token no longer works", now);
            return true;
        });
    }

    /** Sets how many GPUs a user's jobs may hold at once (null: the daemon's default); false when there is no such user. */
    public boolean setMaxGpus(String name, Integer maxGpus, String actor, long now) {
        return writeUsers(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE users SET max_gpus = ? WHERE name = ?")) {
                if (maxGpus == null) ps.setNull(1, Types.INTEGER);
                else ps.setInt(1, maxGpus);
                ps.setString(2, name);
                if (ps.executeUpdate() == 0) return false;
            }
            userEvent(c, name, actor, "limit-set", maxGpus == null ? "GPU limit: the daemon's default" : "GPU limit: " + maxGpus, now);
            return true;
        });
    }

    /** How many admins are not disabled (from memory). */
    public long enabledAdmins() {
        return users.byName().values().stream().filter(u -> u.admin() && !u.disabled()).count();
    }

    /** Every user, by name. */
    public List<User> users() {
        return List.copyOf(users.byName().values());
    }

    /** The audit trail of one user, oldest first. */
    public List<User.Event> userEvents(String name) {
        return db.tx(c -> {
            List<User.Event> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT at, actor, action, detail FROM user_events WHERE user_name = ? ORDER BY id")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.add(new User.Event(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)));
                }
            }
            return out;
        });
    }

    public Optional<User> userByTokenHash(String tokenHash) {
        return Optional.ofNullable(users.byTokenHash().get(tokenHash));
    }

    public Optional<User> user(String name) {
        return Optional.ofNullable(users.byName().get(name));
    }

    private static final String USER_COLUMNS = "name, role, unix_user, disabled, created_at, max_gpus";

    private static Optional<User> userWhere(Connection c, String column, String value) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + USER_COLUMNS + " FROM users WHERE " + column + " = ?")) {
            ps.setString(1, value);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(user(rs)) : Optional.empty();
            }
        }
    }

    private static User user(ResultSet rs) throws SQLException {
        int max = rs.getInt(6);
        Integer maxGpus = rs.wasNull() ? null : max;
        return new User(rs.getString(1), Role.parse(rs.getString(2)), rs.getString(3), rs.getInt(4) != 0, rs.getLong(5), maxGpus);
    }

    // ---- jobs

    /** Stores a submission as a pending job and records its first event. */
    public JobRecord insertJob(NewJob j, String owner, long now) {
        return writeJobs((c, written) -> {
            long id = insertJob(c, j, j.controls(), owner, now);
            written.add(new Written(null, JobRows.inserted(id, j, j.controls(), owner, now)));
            return written.getFirst().row();
        });
    }

    /**
     * Stores a job array in one transaction: one job per index, all or none. The first job's id is the array's id
     * ({@code array_job} of every member); {@code indices} are the members' {@code TANDEM_ARRAY_INDEX}.
     */
    public List<JobRecord> insertArray(NewJob j, List<Integer> indices, String owner, long now) {
        return writeJobs((c, written) -> {
            Long arrayJob = null; // the first member's own id, set once it has one
            for (int index : indices) {
                NewJob member = new NewJob(j.name() + "[" + index + "]", j.argv(), j.env(), j.workdir(), j.gpus(), j.memoryMiB(), j.iterations(),
                        j.signature(), j.timeLimitMs(), j.controls(), j.limits(), j.output());
                long id = insertJob(c, member, j.controls().inArray(arrayJob, index), owner, now);
                if (arrayJob == null) {
                    arrayJob = id;
                    try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET array_job = id WHERE id = ?")) {
                        ps.setLong(1, id);
                        ps.executeUpdate();
                    }
                }
                written.add(new Written(null, JobRows.inserted(id, member, j.controls().inArray(arrayJob, index), owner, now)));
            }
            return written.stream().map(Written::row).toList();
        });
    }

    private static long insertJob(Connection c, NewJob j, JobControls ctl, String owner, long now) throws SQLException {
        long newId;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jobs (owner, name, argv, env, workdir, gpus, memory_mib, iterations, "
                + "sig_model, sig_dataset, sig_batch, sig_amp, state, submitted_at, queued_at, updated_at, reason, time_limit_ms, "
                + "priority, depends_on, held, array_job, array_index, limit_host_memory_mib, limit_processes, output) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, 'submitted', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")) {
            ps.setString(1, owner);
            ps.setString(2, j.name());
            ps.setString(3, toJson(j.argv()));
            ps.setString(4, toJson(j.env()));
            ps.setString(5, j.workdir());
            ps.setInt(6, j.gpus());
            ps.setLong(7, j.memoryMiB());
            setNullableLong(ps, 8, j.iterations());
            setSignature(ps, 9, j.signature());
            ps.setLong(13, now);
            ps.setLong(14, now);
            ps.setLong(15, now);
            setNullableLong(ps, 16, j.timeLimitMs());
            ps.setInt(17, ctl.priority());
            ps.setString(18, ctl.dependsOn().isEmpty() ? null : ids(ctl.dependsOn()));
            ps.setInt(19, ctl.held() ? 1 : 0);
            setNullableLong(ps, 20, ctl.arrayJob());
            if (ctl.arrayIndex() == null) ps.setNull(21, Types.INTEGER);
            else ps.setInt(21, ctl.arrayIndex());
            setNullableLong(ps, 22, j.limits().hostMemoryMiB());
            if (j.limits().processes() == null) ps.setNull(23, Types.INTEGER);
            else ps.setInt(23, j.limits().processes());
            ps.setString(24, j.output());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                newId = rs.getLong(1);
            }
        }
        insertEvent(c, newId, now, null, JobState.PENDING, owner, ctl.held() ? "submitted held" : "submitted");
        return newId;
    }

    /**
     * Holds a waiting job back or releases it, recording who did; the job keeps its state and place. Empty when
     * there is no such job; otherwise the job's state (a job that is not waiting is not changed).
     */
    public Optional<JobState> setHeld(long id, boolean held, String actor, long now) {
        return writeJobs((c, written) -> {
            Optional<JobRecord> job = current(c, id);
            if (job.isEmpty()) return Optional.empty();
            JobState state = job.get().state();
            if (!JobState.QUEUED.contains(state) || job.get().controls().held() == held) return Optional.of(state);
            try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET held = ?, updated_at = ? WHERE id = ? AND held = ?")) {
                ps.setInt(1, held ? 1 : 0);
                ps.setLong(2, now);
                ps.setLong(3, id);
                ps.setInt(4, held ? 0 : 1);
                disagreeUnlessOne(ps.executeUpdate(), id);
            }
            insertEvent(c, id, now, state, state, actor, (held ? "held by " : "released by ") + actor);
            written.add(new Written(state, JobRows.held(job.get(), held, now)));
            return Optional.of(state);
        });
    }

    /** Records that jobs {@code a} and {@code b} shared a GPU (each in the other's partners). */
    public void recordPartners(long a, long b, long now) {
        writeJobs((c, written) -> {
            addPartner(c, written, a, b);
            addPartner(c, written, b, a);
            return null;
        });
    }

    private void addPartner(Connection c, List<Written> written, long id, long partner) throws SQLException {
        // a row this transaction already wrote (a job named twice) reaches the batch's rows only when the transaction ends
        Optional<JobRecord> job = written.stream().map(Written::row).filter(r -> r.id() == id).findFirst();
        if (job.isEmpty()) job = current(c, id);
        if (job.isEmpty() || job.get().partners().contains(partner)) return;
        JobRecord next = JobRows.withPartner(job.get(), partner);
        try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET partners = ? WHERE id = ?")) {
            ps.setString(1, ids(next.partners()));
            ps.setLong(2, id);
            disagreeUnlessOne(ps.executeUpdate(), id);
        }
        written.add(new Written(next.state(), next));
    }

    /** A write that memory says changes one row must change one: otherwise memory and the database disagree, and the write is refused. */
    private static void disagreeUnlessOne(int rowsChanged, long id) {
        if (rowsChanged != 1) throw new StoreException("job " + id + ": the store's database does not hold the row its memory holds (" + rowsChanged + " rows changed)");
    }

    /**
     * Finished jobs (succeeded, failed, cancelled) for accounting, oldest finish first: {@code owner} null for
     * everybody's, finished at or after {@code since} and before {@code until} (epoch ms), at most {@code limit}.
     */
    public List<JobRecord> finishedJobs(String owner, long since, long until, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + JOB_COLUMNS + " FROM jobs WHERE finished_at >= ? AND finished_at < ? AND state IN (?, ?, ?)");
        if (owner != null) sql.append(" AND owner = ?");
        sql.append(" ORDER BY finished_at, id LIMIT ?");
        return db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                int i = 1;
                ps.setLong(i++, since);
                ps.setLong(i++, until);
                for (JobState st : JobState.TERMINAL) ps.setString(i++, st.dbName());
                if (owner != null) ps.setString(i++, owner);
                ps.setInt(i, limit);
                return readJobs(ps);
            }
        });
    }

    /**
     * The {@code limit} most recent jobs that declared their iterations, newest first, in any state: what the scheduler
     * judges declared lengths by again after a restart.
     */
    public List<JobRecord> recentJobsWithIterations(int limit) {
        return db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + JOB_COLUMNS + " FROM jobs WHERE iterations IS NOT NULL ORDER BY id DESC LIMIT ?")) {
                ps.setInt(1, limit);
                return readJobs(ps);
            }
        });
    }

    /** The mean time from submission to first run over every job that has run, in seconds; null before any did. */
    public Double meanWaitSeconds() {
        return db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT AVG(first_started_at - submitted_at), COUNT(*) FROM jobs WHERE first_started_at IS NOT NULL");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(2) == 0 ? null : rs.getDouble(1) / 1000.0;
            }
        });
    }

    /** Job ids as stored in a comma-separated column. */
    private static String ids(List<Long> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static List<Long> parseIds(String s) {
        return s == null || s.isBlank() ? List.of() : Arrays.stream(s.split(",")).map(String::trim).map(Long::valueOf).toList();
    }

    /** A job: an unfinished one from memory, a finished one from the database. */
    public Optional<JobRecord> job(long id) {
        Optional<JobRecord> unfinished = live.unfinished(id);
        return unfinished.isPresent() ? unfinished : db.tx(c -> jobRow(c, id));
    }

    /** The jobs a prepared query selects ({@link #JOB_COLUMNS}), in its order. */
    private static List<JobRecord> readJobs(PreparedStatement ps) throws SQLException {
        List<JobRecord> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) out.add(mapJob(rs));
        }
        return out;
    }

    private static Optional<JobRecord> jobRow(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + JOB_COLUMNS + " FROM jobs WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(mapJob(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Jobs in id (submission) order. {@code owner} null means everybody's, an empty {@code states} every state;
     * at most {@code limit} jobs with an id above {@code afterId}.
     */
    public List<JobRecord> jobs(String owner, Set<JobState> states, long afterId, int limit) {
        if (!states.isEmpty() && JobState.NOT_TERMINAL.containsAll(states)) {
            // only unfinished jobs: from memory
            return live.unfinishedAfter(afterId).stream().filter(r -> states.contains(r.state()) && (owner == null || r.owner().equals(owner)))
                    .limit(limit).toList();
        }
        return db.tx(c -> jobsWhere(c, owner, states, afterId, limit));
    }

    private static List<JobRecord> jobsWhere(Connection c, String owner, Set<JobState> states, long afterId, int limit) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + JOB_COLUMNS + " FROM jobs WHERE id > ?");
        if (owner != null) sql.append(" AND owner = ?");
        if (!states.isEmpty()) sql.append(" AND state IN (").append(states.stream().map(s -> "?").collect(Collectors.joining(", "))).append(")");
        sql.append(" ORDER BY id LIMIT ?");
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int i = 1;
            ps.setLong(i++, afterId);
            if (owner != null) ps.setString(i++, owner);
            for (JobState s : states) ps.setString(i++, s.dbName());
            ps.setInt(i, limit);
            return readJobs(ps);
        }
    }

    /** Every job that has not finished, in submission order: what the scheduler works on (from memory). */
    public List<JobRecord> unfinishedJobs() {
        return live.unfinished();
    }

    /** Jobs that hold or held a process when the daemon last stopped: what a restarted daemon must look after. */
    public List<JobRecord> jobsWithProcess() {
        return db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + JOB_COLUMNS + " FROM jobs WHERE pid IS NOT NULL OR state IN (?, ?, ?) ORDER BY id")) {
                int i = 1;
                for (JobState s : JobState.ON_GPU) ps.setString(i++, s.dbName());
                return readJobs(ps);
            }
        });
    }

    /**
     * Moves a job to {@code to} if it is in one of {@code from}, applying {@code change} and recording the event,
     * atomically. Returns false (and changes nothing) when the job was not in one of {@code from}, e.g. because
     * it was cancelled meanwhile. A change that no step of the job's life cycle makes ({@link JobState#canBecome}, e.g.
     * a finished job running again) is a daemon bug: refused with an {@link IllegalArgumentException} before anything is
     * read or written.
     */
    public boolean transition(long id, Set<JobState> from, JobState to, String actor, String reason, Change change, long now) {
        for (JobState f : from) {
            if (!f.canBecome(to)) throw new IllegalArgumentException("job " + id + ": no step of a job's life moves it from " + f.dbName() + " to " + to.dbName());
        }
        return writeJobs((c, written) -> {
            Optional<JobRecord> job = current(c, id);
            if (job.isEmpty() || !from.contains(job.get().state())) return false;
            JobState old = job.get().state();
            StringBuilder sql = new StringBuilder("UPDATE jobs SET state = ?, reason = ?, updated_at = ?");
            for (Change.Item it : change.items) sql.append(", ").append(it.assignment());
            sql.append(" WHERE id = ? AND state = ?");
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                int i = 1;
                ps.setString(i++, to.dbName());
                ps.setString(i++, reason);
                ps.setLong(i++, now);
                for (Change.Item it : change.items) setValue(ps, i++, it.value());
                ps.setLong(i++, id);
                ps.setString(i, old.dbName());
                disagreeUnlessOne(ps.executeUpdate(), id);
            }
            insertEvent(c, id, now, old, to, actor, reason);
            written.add(new Written(old, JobRows.changed(job.get(), to, reason, now, change)));
            return true;
        });
    }

    /** Records an event in the job's history without changing its state (e.g. a refused decision). */
    public void note(long id, String actor, String reason, long now) {
        writeJobs((c, written) -> {
            Optional<JobRecord> job = current(c, id);
            if (job.isPresent()) insertEvent(c, id, now, job.get().state(), job.get().state(), actor, reason);
            return null;
        });
    }

    /** Updates columns without a state change (no event). */
    public void update(long id, Change change, long now) {
        if (change.items.isEmpty()) return;
        StringBuilder sql = new StringBuilder("UPDATE jobs SET updated_at = ?");
        for (Change.Item it : change.items) sql.append(", ").append(it.assignment());
        sql.append(" WHERE id = ?");
        writeJobs((c, written) -> {
            Optional<JobRecord> job = current(c, id);
            if (job.isEmpty()) return null;
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                int i = 1;
                ps.setLong(i++, now);
                for (Change.Item it : change.items) setValue(ps, i++, it.value());
                ps.setLong(i, id);
                disagreeUnlessOne(ps.executeUpdate(), id);
            }
            JobRecord r = job.get();
            written.add(new Written(r.state(), JobRows.changed(r, r.state(), r.reason(), now, change)));
            return null;
        });
    }

    public List<JobEvent> events(long jobId) {
        return db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT job_id, at, from_state, to_state, actor, reason FROM job_events WHERE job_id = ? ORDER BY id")) {
                ps.setLong(1, jobId);
                List<JobEvent> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String from = rs.getString(3);
                        out.add(new JobEvent(rs.getLong(1), rs.getLong(2), from == null ? null : JobState.parse(from),
                                JobState.parse(rs.getString(4)), rs.getString(5), rs.getString(6)));
                    }
                }
                return out;
            }
        });
    }

    /** Asks the database something, so that it fails when the database does not answer. */
    public void ping() {
        db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM users"); ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        });
    }

    /** How many jobs are in each state (from memory). */
    public Map<JobState, Long> countByState() {
        return live.counts();
    }

    private static Map<JobState, Long> countByState(Connection c) throws SQLException {
        Map<JobState, Long> m = new EnumMap<>(JobState.class);
        for (JobState s : JobState.values()) m.put(s, 0L);
        try (PreparedStatement ps = c.prepareStatement("SELECT state, COUNT(*) FROM jobs GROUP BY state"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) m.put(JobState.parse(rs.getString(1)), rs.getLong(2));
        }
        return m;
    }

    private static void insertEvent(Connection c, long jobId, long at, JobState from, JobState to, String actor, String reason) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO job_events (job_id, at, from_state, to_state, actor, reason) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setLong(1, jobId);
            ps.setLong(2, at);
            ps.setString(3, from == null ? null : from.dbName());
            ps.setString(4, to.dbName());
            ps.setString(5, actor);
            ps.setString(6, reason);
            ps.executeUpdate();
        }
    }

    private static JobRecord mapJob(ResultSet rs) throws SQLException {
        List<Integer> gpus = JobRows.gpuIds(rs.getString("gpu_ids"));
        return new JobRecord(rs.getLong("id"), rs.getString("owner"), rs.getString("name"),
                fromJson(rs.getString("argv"), new TypeReference<List<String>>() {}),
                fromJson(rs.getString("env"), new TypeReference<LinkedHashMap<String, String>>() {}),
                rs.getString("workdir"), rs.getInt("gpus"), rs.getLong("memory_mib"), nullableLong(rs, "iterations"),
                signature(rs, "sig_"), JobState.parse(rs.getString("state")), rs.getInt("attempts"), rs.getInt("exclusive") != 0, gpus,
                nullableLong(rs, "pid"), nullableLong(rs, "pid_started"), nullableInt(rs, "exit_code"), nullableLong(rs, "progress_iter"),
                rs.getLong("attained_gpu_ms"), nullableDouble(rs, "predicted_speed"), nullableDouble(rs, "observed_speed"),
                rs.getLong("submitted_at"), rs.getLong("queued_at"), nullableLong(rs, "started_at"), nullableLong(rs, "finished_at"),
                rs.getLong("updated_at"), rs.getString("reason"), nullableLong(rs, "time_limit_ms"),
                new JobControls(rs.getInt("priority"), parseIds(rs.getString("depends_on")), rs.getInt("held") != 0, nullableLong(rs, "array_job"),
                        nullableInt(rs, "array_index")),
                parseIds(rs.getString("partners")), nullableLong(rs, "first_started_at"),
                new RunLimits(nullableLong(rs, "limit_host_memory_mib"), nullableInt(rs, "limit_processes")), rs.getString("output"));
    }

    /** GPU indices as stored in {@code gpu_ids}. */
    public static String gpuIds(List<Integer> gpus) {
        return gpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    // ---- profiles

    public List<ProfileRecord> profiles() {
        return db.tx(c -> {
            List<ProfileRecord> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT sig_model, sig_dataset, sig_batch, sig_amp, solo_speed, speed_measured, gpu_util, "
                    + "gmem_util, gmem_mib, sm_active, sm_occupancy, dram_active, samples, source_job, gpu_name, measured_at FROM profiles ORDER BY signature");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    JobProfile p = new JobProfile(signature(rs, "sig_"), rs.getDouble("solo_speed"), nan(rs, "gpu_util"), nan(rs, "gmem_util"),
                            nan(rs, "gmem_mib"), nan(rs, "sm_active"), nan(rs, "sm_occupancy"), -1);
                    out.add(new ProfileRecord(p, rs.getInt("speed_measured") != 0, nan(rs, "dram_active"), rs.getInt("samples"),
                            nullableLong(rs, "source_job"), rs.getString("gpu_name"), rs.getLong("measured_at")));
                }
            }
            return out;
        });
    }

    /** Stores a profile, replacing an older one of the same signature. */
    public void saveProfile(ProfileRecord r) {
        JobProfile p = r.profile();
        db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM profiles WHERE signature = ?")) {
                ps.setString(1, p.signature().label());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO profiles (signature, sig_model, sig_dataset, sig_batch, sig_amp, solo_speed, "
                    + "speed_measured, gpu_util, gmem_util, gmem_mib, sm_active, sm_occupancy, dram_active, samples, source_job, gpu_name, measured_at) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, p.signature().label());
                setSignature(ps, 2, p.signature());
                ps.setDouble(6, p.soloSpeed());
                ps.setInt(7, r.speedMeasured() ? 1 : 0);
                setNullableDouble(ps, 8, p.gpuUtil());
                setNullableDouble(ps, 9, p.gmemUtil());
                setNullableDouble(ps, 10, p.gmemMiB());
                setNullableDouble(ps, 11, p.smActivity());
                setNullableDouble(ps, 12, p.smOccupancy());
                setNullableDouble(ps, 13, r.dramActive());
                ps.setInt(14, r.samples());
                setNullableLong(ps, 15, r.sourceJob());
                ps.setString(16, r.gpuName());
                ps.setLong(17, r.measuredAt());
                return ps.executeUpdate();
            }
        });
    }

    // ---- what crashes and co-location taught

    public Map<WorkloadSignature, Long> memoryEstimates() {
        return db.tx(c -> {
            Map<WorkloadSignature, Long> m = new LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT sig_model, sig_dataset, sig_batch, sig_amp, memory_mib FROM memory_estimates");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) m.put(signature(rs, "sig_"), rs.getLong("memory_mib"));
            }
            return m;
        });
    }

    /** Raises (never lowers) the memory a signature is budgeted per GPU. */
    public void raiseMemoryEstimate(WorkloadSignature sig, long mib, long now) {
        db.tx(c -> {
            Long old = null;
            try (PreparedStatement ps = c.prepareStatement("SELECT memory_mib FROM memory_estimates WHERE sig_model = ? AND sig_dataset = ? AND sig_batch = ? AND sig_amp = ?")) {
                setSignature(ps, 1, sig);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) old = rs.getLong(1);
                }
            }
            if (old != null && old >= mib) return 0;
            String sql = old == null
                    ? "INSERT INTO memory_estimates (memory_mib, updated_at, sig_model, sig_dataset, sig_batch, sig_amp) VALUES (?, ?, ?, ?, ?, ?)"
                    : "UPDATE memory_estimates SET memory_mib = ?, updated_at = ? WHERE sig_model = ? AND sig_dataset = ? AND sig_batch = ? AND sig_amp = ?";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, mib);
                ps.setLong(2, now);
                setSignature(ps, 3, sig);
                return ps.executeUpdate();
            }
        });
    }

    /** Signature pairs that crashed with out-of-memory together, as {@code "a|b"} in both orders. */
    public Set<String> oomPairs() {
        return db.tx(c -> {
            Set<String> s = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT sig_a, sig_b FROM oom_pairs"); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) s.add(OutOfMemoryRule.pairKey(rs.getString(1), rs.getString(2)));
            }
            return s;
        });
    }

    public void addOomPair(WorkloadSignature a, WorkloadSignature b, long now) {
        db.tx(c -> {
            for (String[] pair : new String[][] {{a.label(), b.label()}, {b.label(), a.label()}}) {
                try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM oom_pairs WHERE sig_a = ? AND sig_b = ?")) {
                    ps.setString(1, pair[0]);
                    ps.setString(2, pair[1]);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) continue;
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO oom_pairs (sig_a, sig_b, at) VALUES (?, ?, ?)")) {
                    ps.setString(1, pair[0]);
                    ps.setString(2, pair[1]);
                    ps.setLong(3, now);
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    public List<Observation> observations() {
        return db.tx(c -> {
            List<Observation> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT a_model, a_dataset, a_batch, a_amp, b_model, b_dataset, b_batch, b_amp, gpus, "
                    + "speed_a, speed_b FROM pair_observations ORDER BY id"); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Observation(signature(rs, "a_"), signature(rs, "b_"), rs.getInt("gpus"), rs.getDouble("speed_a"), rs.getDouble("speed_b")));
                }
            }
            return out;
        });
    }

    public void addObservation(Observation o, long now) {
        db.tx(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO pair_observations (a_model, a_dataset, a_batch, a_amp, b_model, b_dataset, "
                    + "b_batch, b_amp, gpus, speed_a, speed_b, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                setSignature(ps, 1, o.a());
                setSignature(ps, 5, o.b());
                ps.setInt(9, o.gpus());
                ps.setDouble(10, o.speedA());
                ps.setDouble(11, o.speedB());
                ps.setLong(12, now);
                return ps.executeUpdate();
            }
        });
    }

    @Override public void close() { db.close(); }

    // ---- column helpers

    private static void setSignature(PreparedStatement ps, int at, WorkloadSignature s) throws SQLException {
        ps.setString(at, s.model());
        ps.setString(at + 1, s.dataset());
        ps.setInt(at + 2, s.batchSize());
        ps.setInt(at + 3, s.amp() ? 1 : 0);
    }

    private static WorkloadSignature signature(ResultSet rs, String prefix) throws SQLException {
        return new WorkloadSignature(rs.getString(prefix + "model"), rs.getString(prefix + "dataset"), rs.getInt(prefix + "batch"),
                rs.getInt(prefix + "amp") != 0);
    }

    private static void setValue(PreparedStatement ps, int at, Object v) throws SQLException {
        switch (v) {
            case null -> ps.setNull(at, Types.NULL);
            case Integer i -> ps.setInt(at, i);
            case Long l -> ps.setLong(at, l);
            case Double d -> setNullableDouble(ps, at, d);
            case Boolean b -> ps.setInt(at, b ? 1 : 0);
            case String s -> ps.setString(at, s);
            default -> throw new IllegalArgumentException("unsupported column value " + v.getClass());
        }
    }

    private static void setNullableLong(PreparedStatement ps, int at, Long v) throws SQLException {
        if (v == null) ps.setNull(at, Types.BIGINT);
        else ps.setLong(at, v);
    }

    /** NaN (unknown) is stored as NULL. */
    private static void setNullableDouble(PreparedStatement ps, int at, Double v) throws SQLException {
        if (v == null || v.isNaN()) ps.setNull(at, Types.DOUBLE);
        else ps.setDouble(at, v);
    }

    private static Long nullableLong(ResultSet rs, String col) throws SQLException {
        long v = rs.getLong(col);
        return rs.wasNull() ? null : v;
    }

    private static Integer nullableInt(ResultSet rs, String col) throws SQLException {
        int v = rs.getInt(col);
        return rs.wasNull() ? null : v;
    }

    private static Double nullableDouble(ResultSet rs, String col) throws SQLException {
        double v = rs.getDouble(col);
        return rs.wasNull() ? null : v;
    }

    private static double nan(ResultSet rs, String col) throws SQLException {
        Double d = nullableDouble(rs, col);
        return d == null ? Double.NaN : d;
    }

    private static String toJson(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new StoreException("cannot encode " + o.getClass().getSimpleName() + " as JSON: " + e.getMessage(), e);
        }
    }

    private static <T> T fromJson(String s, TypeReference<T> type) {
        try {
            return JSON.readValue(s, type);
        } catch (JsonProcessingException e) {
            throw new StoreException("corrupt JSON column: " + e.getOriginalMessage(), e);
        }
    }
}
