package dev.tandem.server.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.exec.LocalExecutor;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.sched.LiveState;
import dev.tandem.server.sched.SchedulerLoop;
import dev.tandem.server.sched.Timeline;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.store.ProfileRecord;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;
import dev.tandem.server.store.StoreException;
import dev.tandem.server.store.User;
import dev.tandem.server.exec.UnixAccount;
import io.javalin.Javalin;
import jdk.net.UnixDomainPrincipal;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import io.javalin.http.sse.SseHandler;
import io.javalin.http.staticfiles.Location;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The HTTP API, {@code /api/v1}, JSON in and out. Every endpoint but {@code /metrics} needs a bearer token; a
 * user sees and cancels only its own jobs (another user's job is "not found"), an admin sees all. Errors are
 * {@code {"error": "...", "field": "..."}} with a 4xx status. Request bodies are limited in size.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    private static final String PREFIX = "/api/v1";
    private static final Pattern USER_NAME = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    private static final int MAX_LOG_CHUNK = 1 << 20;

    private final Store store;
    private final SchedulerLoop loop;
    private final ServerMetrics metrics;
    private final Path stateDir;
    private final String sharing;
    private final int maxBodyBytes;
    private final Auth auth;
    private final JobRequest requests;
    private final ObjectMapper json = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private final JobJson jobJson = new JobJson(json);
    private final DashboardJson dashboard;
    private final byte[] openApi;
    private final Javalin app;
    /** The account the daemon runs as: which Unix accounts its users' jobs may run as. */
    private final UnixAccount daemonAccount = UnixAccount.current();

    public ApiServer(Store store, SchedulerLoop loop, ServerMetrics metrics, Path stateDir, String sharing, String host, int port, int maxBodyBytes) {
        this(store, loop, metrics, stateDir, sharing, host, port, maxBodyBytes, null);
    }

    /** @param socket a Unix socket to listen on besides host:port, for local clients known by their credentials (null: none) */
    public ApiServer(Store store, SchedulerLoop loop, ServerMetrics metrics, Path stateDir, String sharing, String host, int port, int maxBodyBytes,
                     Path socket) {
        this.store = store;
        this.loop = loop;
        this.metrics = metrics;
        this.stateDir = stateDir;
        this.sharing = sharing;
        this.maxBodyBytes = maxBodyBytes;
        this.auth = new Auth(store);
        List<GpuDevice> devices = loop.devices();
        this.requests = new JobRequest(loop.widestJob(), devices.stream().mapToLong(GpuDevice::memoryMiB).max().orElse(0), System.getProperty("user.dir"));
        try (InputStream in = ApiServer.class.getResourceAsStream("openapi.json")) {
            if (in == null) throw new IllegalStateException("openapi.json is missing from the tandem jar");
            this.openApi = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read openapi.json: " + e.getMessage(), e);
        }
        this.dashboard = new DashboardJson(json, store, loop, sharing);
        this.app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.concurrency.useVirtualThreads = true;
            cfg.jetty.host = host;
            cfg.jetty.port = port;
            cfg.http.maxRequestSize = maxBodyBytes;
            if (socket != null) {
                // Javalin adds its host:port connector only where no other is configured: both are added here
                cfg.jetty.addConnector((server, http) -> {
                    ServerConnector tcp = new ServerConnector(server, new HttpConnectionFactory(http));
                    tcp.setHost(host);
                    tcp.setPort(port);
                    return tcp;
                });
                cfg.jetty.addConnector((server, http) -> {
                    UnixDomainServerConnector c = new UnixDomainServerConnector(server, new HttpConnectionFactory(http));
                    c.setUnixDomainPath(socket);
                    return c;
                });
            }
            cfg.requestLogger.http((ctx, ms) -> log.debug("{} {} -> {} in {} ms", ctx.method(), ctx.path(), ctx.statusCode(), ms.longValue()));
            cfg.routes.before(PREFIX + "/*", ctx -> {
                if (ctx.path().equals(PREFIX + "/metrics")) return;
                UnixDomainPrincipal peer = SocketPeer.of(ctx.req());
                ctx.attribute("user", peer == null ? auth.authenticate(ctx.header("Authorization"))
                        : auth.authenticatePeer(peer.user().getName(), peer.user().getName().equals(daemonAccount.name())));
            });
            cfg.routes.after(PREFIX + "/*", this::readWhatIsLeftOfTheBody);
            cfg.routes.post(PREFIX + "/jobs", this::submit);
            cfg.routes.get(PREFIX + "/jobs", this::list);
            cfg.routes.get(PREFIX + "/jobs/{id}", this::show);
            cfg.routes.post(PREFIX + "/jobs/{id}/cancel", this::cancel);
            cfg.routes.get(PREFIX + "/jobs/{id}/logs", this::logs);
            cfg.routes.post(PREFIX + "/jobs/{id}/hold", ctx -> setHeld(ctx, true));
            cfg.routes.post(PREFIX + "/jobs/{id}/release", ctx -> setHeld(ctx, false));
            cfg.routes.get(PREFIX + "/history", this::history);
            cfg.routes.get(PREFIX + "/jobs/{id}/speeds", this::speeds);
            cfg.routes.get(PREFIX + "/jobs/{id}/logs/stream", this::followLogs);
            cfg.routes.get(PREFIX + "/dashboard", ctx -> send(ctx, dashboard.state(ctx.attribute("user"), loop.live())));
            cfg.routes.get(PREFIX + "/dashboard/stream", new SseHandler(this::streamDashboard));
            // the dashboard's page and scripts (built from dashboard/ by npm into the jar); its data needs a token
            cfg.staticFiles.add(sf -> {
                sf.hostedPath = "/";
                sf.directory = "/dev/tandem/dashboard";
                sf.location = Location.CLASSPATH;
            });
            cfg.routes.get(PREFIX + "/gpus", this::gpus);
            cfg.routes.get(PREFIX + "/profiles", this::profiles);
            cfg.routes.post(PREFIX + "/users", this::createUser);
            cfg.routes.get(PREFIX + "/users", this::listUsers);
            cfg.routes.get(PREFIX + "/users/{name}", this::showUser);
            cfg.routes.post(PREFIX + "/users/{name}/disable", ctx -> setDisabled(ctx, true));
            cfg.routes.post(PREFIX + "/users/{name}/enable", ctx -> setDisabled(ctx, false));
            cfg.routes.post(PREFIX + "/users/{name}/rotate-token", this::rotateToken);
            cfg.routes.post(PREFIX + "/users/{name}/limits", this::setLimits);
            cfg.routes.get(PREFIX + "/metrics", this::metrics);
            // the conventional paths of Prometheus and of liveness/readiness probes; no token, like /api/v1/metrics
            cfg.routes.get("/metrics", this::metrics);
            cfg.routes.get("/healthz", ctx -> ctx.json(Map.of("status", "ok")));
            cfg.routes.get("/readyz", this::ready);
            cfg.routes.get(PREFIX + "/openapi.json", ctx -> ctx.contentType("application/json").result(openApi));
            cfg.routes.exception(ApiError.class, (e, ctx) -> error(ctx, e.status(), e.field(), e.getMessage()));
            cfg.routes.exception(Exception.class, (e, ctx) -> {
                log.error("{} {} failed: {}", ctx.method(), ctx.path(), e.toString(), e);
                error(ctx, 500, null, "internal error; see the daemon's log");
            });
            cfg.routes.error(404, "*", ctx -> {
                if (ctx.attribute("error-written") == null) error(ctx, 404, null, "no such endpoint: " + ctx.method() + " " + ctx.path());
            });
            cfg.routes.error(405, "*", ctx -> {
                if (ctx.attribute("error-written") == null) error(ctx, 405, null, "method not allowed: " + ctx.method() + " " + ctx.path());
            });
        });
        app.start();
    }

    /** The TCP port (the first connector is the TCP one). */
    public int port() { return app.port(); }

    private void metrics(Context ctx) {
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape());
    }

    /** 200 when the store answers and the scheduler is ticking; 503 with the reason otherwise. */
    private void ready(Context ctx) {
        String problem;
        try {
            store.ping();
            problem = loop.notReady(loop.now()).orElse(null);
        } catch (RuntimeException e) {
            problem = "the store does not answer: " + e.getMessage();
        }
        if (problem == null) ctx.json(Map.of("status", "ready"));
        else ctx.status(503).json(Map.of("status", "not ready", "reason", problem));
    }

    @Override public void close() { app.stop(); }

    // ---- jobs

    /**
     * The account a user's jobs run as, where it is not the daemon's own (null then, also for a user whose account is
     * gone: such a job fails at its start, saying so). A submission's directories are checked with its rights
     * ({@link UnixAccount#cannotEnter}), whatever the executor: a root daemon must not tell a user which directories exist.
     */
    private static UnixAccount runsAs(User user) {
        return UnixAccount.isDaemons(user.unixUser()) ? null : UnixAccount.lookup(user.unixUser()).orElse(null);
    }

    /**
     * Stores a job, or a job array (one job per index, in one transaction; the answer is the first member, with
     * {@code array_job_ids}). Raising the priority above 0 takes an admin; dependencies must be the caller's own jobs
     * (an admin's: anyone's) that can still succeed.
     */
    private void submit(Context ctx) {
        User user = ctx.attribute("user");
        UnixAccount owner = runsAs(user);
        JobRequest.Submission sub = requests.parse(body(ctx), dir -> owner != null ? owner.cannotEnter(dir)
                : Files.isDirectory(dir) ? Optional.empty() : Optional.of("no such directory on the server: " + dir));
        NewJob j = sub.job();
        loop.cannotEnforce(j.limits()).ifPresent(why -> { throw ApiError.badField("limits", why); });
        loop.cannotRun(j.signature()).ifPresent(why -> { throw ApiError.badField("signature", why); });
        j.env().forEach((name, value) -> loop.cannotUse(name, value).ifPresent(why -> { throw ApiError.badField("env." + name, why); }));
        if (j.controls().priority() > 0 && !user.admin()) {
            throw new ApiError(403, "priority", "only an admin raises a job's priority above 0; users may lower their own (down to -" + JobRequest.MAX_PRIORITY + ")");
        }
        for (long dep : j.controls().dependsOn()) {
            JobRecord d = store.job(dep).filter(r -> user.admin() || r.owner().equals(user.name()))
                    .orElseThrow(() -> ApiError.badField("after", "no job " + dep + " of yours"));
            if (d.state() == JobState.FAILED || d.state() == JobState.CANCELLED) {
                throw ApiError.badField("after", "job " + dep + " has " + d.state().dbName() + "; a job after it could never start");
            }
        }
        long now = loop.now();
        List<JobRecord> stored = sub.arrayIndices().isEmpty() ? List.of(store.insertJob(j, user.name(), now))
                : store.insertArray(j, sub.arrayIndices(), user.name(), now);
        for (JobRecord r : stored) metrics.submitted();
        JobRecord first = stored.getFirst();
        if (stored.size() == 1) log.info("job {} submitted by {}: {} ({} GPU(s))", first.id(), user.name(), first.name(), first.gpus());
        else log.info("job array {} submitted by {}: {} jobs {}..{} ({} GPU(s) each)", first.id(), user.name(), stored.size(), first.id(),
                stored.getLast().id(), first.gpus());
        loop.wake();
        ctx.status(201);
        ObjectNode o = jobJson.job(first, null, user.name());
        if (first.controls().arrayJob() != null) {
            ArrayNode ids = o.putArray("array_job_ids");
            stored.forEach(r -> ids.add(r.id()));
        }
        send(ctx, o);
    }

    /** Holds a waiting job back ({@code hold}) or lets it run again; the job's owner or an admin. */
    private void setHeld(Context ctx, boolean held) {
        User user = ctx.attribute("user");
        JobRecord r = visibleJob(ctx);
        JobState state = store.setHeld(r.id(), held, user.name(), loop.now()).orElseThrow(() -> ApiError.notFound("job " + r.id()));
        if (!JobState.QUEUED.contains(state)) {
            throw new ApiError(409, null, "job " + r.id() + " is " + state.dbName() + "; only a waiting job can be " + (held ? "held" : "released"));
        }
        log.info("job {} {} by {}", r.id(), held ? "held" : "released", user.name());
        loop.wake();
        send(ctx, jobJson.job(store.job(r.id()).orElseThrow(), loop.live().job(r.id()), user.name()));
    }

    /**
     * Finished jobs for accounting: wait, run time, GPU-hours, partners and speed next to them. A user sees its own,
     * an admin everybody's or one user's ({@code user}); {@code since}/{@code until} take an ISO-8601 time, a date
     * (UTC) or a duration back from now ("7d").
     */
    private void history(Context ctx) {
        User user = ctx.attribute("user");
        String owner = user.admin() ? ctx.queryParam("user") : user.name();
        long now = loop.now();
        long since = TimeQuery.parse(ctx.queryParam("since"), "since", 0, now);
        long until = TimeQuery.parse(ctx.queryParam("until"), "until", Long.MAX_VALUE, now);
        int limit = (int) queryLong(ctx, "limit", 1000, 1, 100_000);
        ObjectNode out = json.createObjectNode();
        ArrayNode jobs = out.putArray("jobs");
        for (JobRecord r : store.finishedJobs(owner, since, until, limit)) jobs.add(jobJson.accounting(r));
        send(ctx, out);
    }

    private void list(Context ctx) {
        User user = ctx.attribute("user");
        Set<JobState> states = EnumSet.noneOf(JobState.class);
        String s = ctx.queryParam("state");
        if (s != null && !s.isBlank()) {
            for (String part : s.split(",")) {
                try {
                    states.add(JobState.parse(part.strip()));
                } catch (IllegalArgumentException e) {
                    throw ApiError.badField("state", e.getMessage());
                }
            }
        }
        String owner = user.admin() ? ctx.queryParam("user") : user.name();
        int limit = (int) queryLong(ctx, "limit", 1000, 1, 10_000);
        long after = queryLong(ctx, "after", 0, 0, Long.MAX_VALUE);
        LiveState live = loop.live();
        ObjectNode out = json.createObjectNode();
        ArrayNode jobs = out.putArray("jobs");
        for (JobRecord r : store.jobs(owner, states, after, limit)) jobs.add(jobJson.job(r, live.job(r.id()), user.name()));
        send(ctx, out);
    }

    private void show(Context ctx) {
        User user = ctx.attribute("user");
        JobRecord r = visibleJob(ctx);
        ObjectNode o = jobJson.job(r, loop.live().job(r.id()), user.name());
        o.set("events", jobJson.events(store.events(r.id())));
        send(ctx, o);
    }

    private void cancel(Context ctx) {
        User user = ctx.attribute("user");
        JobRecord r = visibleJob(ctx);
        long now = loop.now();
        if (!store.transition(r.id(), JobState.NOT_TERMINAL, JobState.CANCELLED, user.name(), "cancelled by " + user.name(),
                new Change().set(Change.Column.FINISHED_AT, now), now)) {
            JobRecord again = store.job(r.id()).orElseThrow(() -> ApiError.notFound("job " + r.id()));
            throw new ApiError(409, null, "job " + r.id() + " has already " + again.state().dbName());
        }
        log.info("job {} cancelled by {}", r.id(), user.name());
        loop.wake();
        send(ctx, jobJson.job(store.job(r.id()).orElseThrow(), loop.live().job(r.id()), user.name()));
    }

    private void logs(Context ctx) {
        JobRecord r = visibleJob(ctx);
        long offset = queryLong(ctx, "offset", 0, 0, Long.MAX_VALUE);
        int limit = (int) queryLong(ctx, "limit", MAX_LOG_CHUNK, 1, MAX_LOG_CHUNK);
        Path file = LocalExecutor.logFile(stateDir, r.id());
        LogChunk chunk;
        try {
            chunk = LogChunk.read(file, offset, limit);
        } catch (IOException e) {
            throw new ApiError(500, null, "cannot read the job's output: " + e.getMessage());
        }
        long next = offset + chunk.bytes();
        long size = chunk.size();
        ObjectNode o = json.createObjectNode();
        o.put("job_id", r.id());
        o.put("offset", offset);
        o.put("next_offset", next);
        o.put("size", size);
        o.put("data", chunk.text());
        // complete: the job has finished and its output has been read to the end; followers stop here
        o.put("complete", r.state().terminal() && r.pid() == null && next >= size);
        send(ctx, o);
    }

    /**
     * Up to {@code limit} bytes of a job's output from {@code offset}, cut at a character boundary (the rest comes
     * with the next read): the text, how many bytes it is, and the file's size when read (0 when it does not exist).
     */
    record LogChunk(long size, int bytes, String text) {
        static LogChunk read(Path file, long offset, int limit) throws IOException {
            if (!Files.exists(file)) return new LogChunk(0, 0, "");
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                long size = f.length();
                if (offset >= size) return new LogChunk(size, 0, "");
                byte[] data = new byte[(int) Math.min(limit, size - offset)];
                f.seek(offset);
                f.readFully(data);
                int usable = utf8Boundary(data, offset + data.length < size);
                return new LogChunk(size, usable, new String(data, 0, usable, StandardCharsets.UTF_8));
            }
        }
    }

    /** How many bytes of a chunk end on a character boundary, so a follower never gets half a UTF-8 character. */
    static int utf8Boundary(byte[] b, boolean more) {
        int n = b.length;
        if (n == 0) return 0;
        int i = n - 1, back = 0;
        while (i >= 0 && back < 4 && (b[i] & 0xC0) == 0x80) {
            i--;
            back++;
        }
        if (i < 0) return n;
        int lead = b[i] & 0xFF;
        int len = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        return i + len <= n ? n : i; // the last character is cut: stop before it (it comes with the next chunk)
    }

    private JobRecord visibleJob(Context ctx) {
        User user = ctx.attribute("user");
        long id;
        try {
            id = Long.parseLong(ctx.pathParam("id"));
        } catch (NumberFormatException e) {
            throw ApiError.badField("id", "job ids are whole numbers, got '" + ctx.pathParam("id") + "'");
        }
        // another user's job is reported as absent: its existence is none of this user's business
        return store.job(id).filter(r -> user.admin() || r.owner().equals(user.name())).orElseThrow(() -> ApiError.notFound("job " + id));
    }

    /** A job's speed samples while it ran: measured speed relative to alone (null when alone) and iterations/s. */
    private void speeds(Context ctx) {
        JobRecord r = visibleJob(ctx);
        ObjectNode o = json.createObjectNode();
        ArrayNode t = o.putArray("t"), observed = o.putArray("observed"), rate = o.putArray("iterations_per_second");
        for (Timeline.SpeedPoint p : loop.timeline().speeds(r.id())) {
            t.add(p.at() / 1000.0);
            if (Double.isFinite(p.relative())) observed.add(p.relative());
            else observed.addNull();
            if (Double.isFinite(p.iterationsPerSecond())) rate.add(p.iterationsPerSecond());
            else rate.addNull();
        }
        send(ctx, o);
    }

    /**
     * The dashboard as server-sent events: a {@code state} event whenever what this user sees changed (at most one a
     * second), a comment every 15 s otherwise so that proxies keep the connection.
     */
    private void streamDashboard(SseClient client) {
        User user = client.ctx().attribute("user");
        client.keepAlive();
        String last = null;
        long lastAt = 0, lastSent = 0;
        try {
            while (!client.terminated() && loop.running()) {
                LiveState live = loop.awaitNewer(lastAt, 15_000);
                lastAt = live.at();
                String now = json.writeValueAsString(dashboard.state(user, live));
                long t = System.currentTimeMillis();
                if (!now.equals(last)) {
                    client.sendEvent("state", now);
                    last = now;
                    lastSent = t;
                } else if (t - lastSent >= 15_000) {
                    client.sendComment("keep-alive");
                    lastSent = t;
                }
                Thread.sleep(1000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (JsonProcessingException | StoreException e) {
            log.debug("dashboard stream ended: {}", e.toString());
        } finally {
            client.close();
        }
    }

    /** A job's output as server-sent events: {@code log} events with new output as it is written, {@code end} when complete. */
    private void followLogs(Context ctx) throws Exception {
        JobRecord job = visibleJob(ctx);
        Path file = LocalExecutor.logFile(stateDir, job.id());
        new SseHandler(client -> {
            client.keepAlive();
            long offset = 0;
            try {
                while (!client.terminated() && loop.running()) {
                    boolean finished = store.job(job.id()).map(r -> r.state().terminal() && r.pid() == null).orElse(true);
                    long size;
                    for (;;) {
                        LogChunk chunk = LogChunk.read(file, offset, MAX_LOG_CHUNK);
                        size = chunk.size();
                        if (chunk.bytes() == 0) break;
                        ObjectNode o = json.createObjectNode();
                        o.put("offset", offset);
                        o.put("data", chunk.text());
                        client.sendEvent("log", json.writeValueAsString(o));
                        offset += chunk.bytes();
                    }
                    if (finished && offset >= size) {
                        client.sendEvent("end", "{\"offset\": " + offset + "}");
                        break;
                    }
                    Thread.sleep(500);
                }
            } catch (IOException | StoreException e) {
                // the client went away, or the daemon is shutting down (its store closed)
                log.debug("log stream of job {} ended: {}", job.id(), e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                client.close();
            }
        }).handle(ctx);
    }

    // ---- machine

    private void gpus(Context ctx) {
        User user = ctx.attribute("user");
        LiveState live = loop.live();
        ObjectNode out = json.createObjectNode();
        out.put("sharing", sharing);
        ArrayNode gpus = out.putArray("gpus");
        List<GpuDevice> devices = loop.devices();
        java.util.function.LongPredicate visible = id -> user.admin() || store.job(id).map(r -> r.owner().equals(user.name())).orElse(false);
        for (int g = 0; g < devices.size(); g++) {
            GpuDevice d = devices.get(g);
            ObjectNode o = gpus.addObject();
            o.put("index", d.index());
            o.put("node", d.node());
            o.put("uuid", d.uuid());
            o.put("name", d.name());
            o.put("memory_total_mib", d.memoryMiB());
            LiveState.GpuLive gl = g < live.gpus().size() ? live.gpus().get(g) : null;
            JobJson.putNullable(o, "memory_used_mib", gl == null || gl.latest() == null ? null : gl.latest().memoryUsedMiB());
            JobJson.putNullable(o, "utilization_gpu", gl == null || gl.latest() == null ? null : gl.latest().utilGpu());
            JobJson.putNullable(o, "utilization_memory", gl == null || gl.latest() == null ? null : gl.latest().utilMemory());
            List<Long> on = gl == null ? List.of() : gl.jobs();
            o.put("tenants", on.size());
            o.put("shared", on.size() > 1);
            ArrayNode jobs = o.putArray("jobs");
            for (long id : on) {
                if (visible.test(id)) jobs.add(id);
            }
            // why no job is placed there now, and the processes that are not tandem's (as ps shows them to everyone)
            o.put("unavailable", gl == null ? null : gl.unavailable());
            JobJson.putHeld(o, gl == null ? null : gl.heldFor(), visible);
            ArrayNode foreign = o.putArray("foreign_processes");
            for (var a : gl == null ? List.<dev.tandem.server.gpu.ComputeApp>of() : gl.foreign()) {
                ObjectNode p = foreign.addObject();
                p.put("pid", a.pid());
                p.put("name", a.name());
                JobJson.putNullable(p, "used_memory_mib", a.usedMiB() >= 0 ? a.usedMiB() : null);
            }
        }
        send(ctx, out);
    }

    private void profiles(Context ctx) {
        ObjectNode out = json.createObjectNode();
        ArrayNode list = out.putArray("profiles");
        for (ProfileRecord r : store.profiles()) {
            var p = r.profile();
            ObjectNode o = list.addObject();
            o.put("signature", p.signature().label());
            o.set("workload", jobJson.signature(p.signature()));
            JobJson.putNullable(o, "solo_speed", r.speedMeasured() ? p.soloSpeed() : null);
            JobJson.putNullable(o, "gpu_util", p.gpuUtil());
            JobJson.putNullable(o, "gmem_util", p.gmemUtil());
            JobJson.putNullable(o, "gmem_mib", p.gmemMiB());
            JobJson.putNullable(o, "sm_active", p.smActivity());
            JobJson.putNullable(o, "sm_occupancy", p.smOccupancy());
            JobJson.putNullable(o, "dram_active", r.dramActive());
            o.put("samples", r.samples());
            JobJson.putNullable(o, "source_job", r.sourceJob());
            o.put("gpu_name", r.gpuName());
            o.put("measured_at", JobJson.time(r.measuredAt()));
        }
        send(ctx, out);
    }

    private void createUser(Context ctx) {
        User user = ctx.attribute("user");
        if (!user.admin()) throw new ApiError(403, null, "only an admin creates users");
        JsonNode b = body(ctx);
        if (!b.isObject()) throw new ApiError(400, null, "the body must be a JSON object {name, role, unix_user, allow_root}");
        for (var it = b.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!f.equals("name") && !f.equals("role") && !f.equals("unix_user") && !f.equals("allow_root")) throw ApiError.badField(f, "unknown field (known: name, role, unix_user, allow_root)");
        }
        JsonNode n = b.get("name");
        if (n == null || !n.isTextual()) throw ApiError.badField("name", "required, a string");
        String name = n.asText();
        if (!USER_NAME.matcher(name).matches()) throw ApiError.badField("name", "lower-case letters, digits, '_' and '-', starting with a letter, at most 32");
        JsonNode roleNode = b.get("role");
        Role role = Role.USER;
        if (roleNode != null && !roleNode.isNull()) {
            if (!roleNode.isTextual() || !(roleNode.asText().equals("user") || roleNode.asText().equals("admin"))) {
                throw ApiError.badField("role", "must be 'user' or 'admin'");
            }
            role = Role.parse(roleNode.asText());
        }
        if (store.user(name).isPresent()) throw new ApiError(409, "name", "user '" + name + "' exists");
        JsonNode unixNode = b.get("unix_user");
        if (unixNode != null && !unixNode.isNull() && !unixNode.isTextual()) throw ApiError.badField("unix_user", "must be a string, a Unix account name");
        JsonNode allowRoot = b.get("allow_root");
        if (allowRoot != null && !allowRoot.isNull() && !allowRoot.isBoolean()) throw ApiError.badField("allow_root", "must be true or false");
        UnixAccount account;
        try {
            account = UnixAccount.resolve(unixNode == null || unixNode.isNull() ? null : unixNode.asText(), name, allowRoot != null && allowRoot.asBoolean(), daemonAccount, UnixAccount::lookup);
        } catch (IllegalArgumentException e) {
            throw ApiError.badField("unix_user", e.getMessage());
        }
        String unixUser = account.name();
        String token = Tokens.generate();
        if (!store.createUser(name, role, Tokens.hash(token), unixUser, user.name(), loop.now())) throw new ApiError(409, "name", "user '" + name + "' exists");
        log.info("user {} ({}, Unix account {}) created by {}", name, role.dbName(), unixUser, user.name());
        String warning = account.root() ? "its jobs run as root (uid 0), with every right on this machine; whoever holds its token has them too" : null;
        if (warning != null) log.warn("user {}: {}", name, warning);
        ObjectNode o = json.createObjectNode();
        o.put("name", name);
        o.put("role", role.dbName());
        o.put("unix_user", unixUser);
        o.put("token", token);
        o.put("note", "the token is shown only now: tandem keeps only its SHA-256");
        if (warning != null) o.put("warning", warning);
        ctx.status(201);
        send(ctx, o);
    }

    private static void requireAdmin(User user, String what) {
        if (!user.admin()) throw new ApiError(403, null, "only an admin " + what);
    }

    private ObjectNode userJson(User u) {
        ObjectNode o = json.createObjectNode();
        o.put("name", u.name());
        o.put("role", u.role().dbName());
        o.put("unix_user", u.unixUser() != null ? u.unixUser() : System.getProperty("user.name"));
        o.put("disabled", u.disabled());
        JobJson.putNullable(o, "max_gpus", u.maxGpus());
        o.put("created_at", JobJson.time(u.createdAt()));
        return o;
    }

    private void listUsers(Context ctx) {
        requireAdmin(ctx.attribute("user"), "lists users");
        ObjectNode out = json.createObjectNode();
        ArrayNode list = out.putArray("users");
        for (User u : store.users()) list.add(userJson(u));
        send(ctx, out);
    }

    /** A user with its audit trail; users see themselves, admins everyone. */
    private void showUser(Context ctx) {
        User user = ctx.attribute("user");
        String name = ctx.pathParam("name");
        if (!user.admin() && !user.name().equals(name)) throw ApiError.notFound("user " + name);
        User u = store.user(name).orElseThrow(() -> ApiError.notFound("user " + name));
        ObjectNode o = userJson(u);
        ArrayNode events = o.putArray("events");
        for (User.Event e : store.userEvents(name)) {
            ObjectNode ev = events.addObject();
            ev.put("at", JobJson.time(e.at()));
            ev.put("actor", e.actor());
            ev.put("action", e.action());
            ev.put("detail", e.detail());
        }
        send(ctx, o);
    }

    /** The last enabled admin cannot be disabled: nobody could manage users any more. */
    private void setDisabled(Context ctx, boolean disabled) {
        User user = ctx.attribute("user");
        requireAdmin(user, disabled ? "disables users" : "enables users");
        String name = ctx.pathParam("name");
        User u = store.user(name).orElseThrow(() -> ApiError.notFound("user " + name));
        if (disabled && u.admin() && !u.disabled() && store.enabledAdmins() <= 1) {
            throw new ApiError(409, null, "user " + name + " is the last enabled admin; create or enable another admin first");
        }
        store.setDisabled(name, disabled, user.name(), loop.now());
        auth.forget(name);
        log.info("user {} {} by {}", name, disabled ? "disabled" : "enabled", user.name());
        send(ctx, userJson(store.user(name).orElseThrow()));
    }

    /** A new token for a user (an admin for anyone, a user for itself); the old one stops working at once. */
    private void rotateToken(Context ctx) {
        User user = ctx.attribute("user");
        String name = ctx.pathParam("name");
        if (!user.admin() && !user.name().equals(name)) throw new ApiError(403, null, "only an admin rotates another user's token");
        store.user(name).orElseThrow(() -> ApiError.notFound("user " + name));
        String token = Tokens.generate();
        store.rotateToken(name, Tokens.hash(token), user.name(), loop.now());
        auth.forget(name);
        log.info("token of user {} rotated by {}", name, user.name());
        ObjectNode o = json.createObjectNode();
        o.put("name", name);
        o.put("token", token);
        o.put("note", "the token is shown only now: tandem keeps only its SHA-256; the old token no longer works");
        send(ctx, o);
    }

    /** Sets a user's GPU limit: {@code {"max_gpus": N}}, or null for the daemon's default. */
    private void setLimits(Context ctx) {
        User user = ctx.attribute("user");
        requireAdmin(user, "sets limits");
        String name = ctx.pathParam("name");
        store.user(name).orElseThrow(() -> ApiError.notFound("user " + name));
        JsonNode b = body(ctx);
        if (!b.isObject()) throw new ApiError(400, null, "the body must be a JSON object {max_gpus}");
        for (var it = b.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!f.equals("max_gpus")) throw ApiError.badField(f, "unknown field (known: max_gpus)");
        }
        JsonNode n = b.get("max_gpus");
        if (n == null) throw ApiError.badField("max_gpus", "required: a number of GPUs, or null for the daemon's default");
        Integer max = null;
        if (!n.isNull()) {
            if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < 1) throw ApiError.badField("max_gpus", "must be a whole number of at least 1, or null");
            max = n.asInt();
        }
        store.setMaxGpus(name, max, user.name(), loop.now());
        auth.forget(name);
        log.info("GPU limit of user {} set to {} by {}", name, max == null ? "the default" : max, user.name());
        loop.wake();
        send(ctx, userJson(store.user(name).orElseThrow()));
    }

    // ---- plumbing

    /**
     * Reads what a handler left of the request body (cancel and hold ignore theirs; an error may answer before a
     * body is read). Left unread, the server drops the kept-alive connection after its response, and a client that
     * sends its next request on that connection fails. Runs after every handler, also one that threw, before the
     * response is written; a body larger than the limit was refused with 413 and is not read further.
     */
    private void readWhatIsLeftOfTheBody(Context ctx) {
        if (ctx.req().getContentLengthLong() > maxBodyBytes) return;
        try {
            InputStream in = ctx.req().getInputStream();
            byte[] sink = new byte[8192];
            for (long left = maxBodyBytes + 1L; left > 0; ) {
                int n = in.read(sink, 0, (int) Math.min(sink.length, left));
                if (n < 0) break;
                left -= n;
            }
        } catch (IOException e) {
            // the client went away or sent less than it declared: the connection is lost anyway
        }
    }

    private JsonNode body(Context ctx) {
        String type = ctx.contentType();
        if (type != null && !type.isBlank() && !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            throw new ApiError(415, null, "send the body as application/json, not " + type);
        }
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBodyBytes) throw new ApiError(413, null, "the body is " + declared + " bytes; the limit is " + maxBodyBytes);
        byte[] b;
        try {
            b = ctx.bodyInputStream().readNBytes(maxBodyBytes + 1);
        } catch (IOException e) {
            throw new ApiError(400, null, "cannot read the body: " + e.getMessage());
        }
        if (b.length > maxBodyBytes) throw new ApiError(413, null, "the body is larger than the limit of " + maxBodyBytes + " bytes");
        if (b.length == 0) throw new ApiError(400, null, "the body is empty; expected a JSON object");
        try {
            return json.readTree(b);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new ApiError(400, null, "the body is not valid JSON: " + e.getOriginalMessage()
                    + (loc == null ? "" : " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")"));
        } catch (IOException e) {
            throw new ApiError(400, null, "cannot read the body: " + e.getMessage());
        }
    }

    private static long queryLong(Context ctx, String name, long dflt, long min, long max) {
        String v = ctx.queryParam(name);
        if (v == null || v.isBlank()) return dflt;
        try {
            long n = Long.parseLong(v.strip());
            if (n < min || n > max) throw ApiError.badField(name, "must be within " + min + ".." + max + ", got " + n);
            return n;
        } catch (NumberFormatException e) {
            throw ApiError.badField(name, "must be a whole number, got '" + v + "'");
        }
    }

    private void send(Context ctx, JsonNode body) {
        try {
            ctx.contentType("application/json").result(json.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a response: " + e.getMessage(), e);
        }
    }

    private void error(Context ctx, int status, String field, String message) {
        ObjectNode o = json.createObjectNode();
        o.put("error", message);
        if (field != null) o.put("field", field);
        o.put("status", status);
        ctx.attribute("error-written", true);
        if (status == 401) ctx.header("WWW-Authenticate", "Bearer");
        ctx.status(status);
        send(ctx, o);
    }
}
