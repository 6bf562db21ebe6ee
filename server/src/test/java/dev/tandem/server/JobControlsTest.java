package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job controls Slurm users rely on, through the whole daemon (API, store, scheduler loop, local executor with real
 * processes): priorities, dependencies, hold and release, job arrays, per-user GPU limits, accounting.
 */
class JobControlsTest {
    private static final Duration LONG = Duration.ofSeconds(60);

    @TempDir Path dir;
    TandemServer server;
    TestApi api;
    String admin;

    void start(String fixture, int maxGpusPerUser) throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), fixture);
        ServerConfig base = host.config(dir.resolve("state"), "fifo", Sharing.TIME_SLICING);
        ServerConfig cfg = new ServerConfig(base.stateDir(), base.host(), base.port(), base.store(), base.policy(), base.sharing(),
                base.mpsThreadPercentage(), base.scheduler().withMaxGpusPerUser(maxGpusPerUser), base.stopGraceMs(), base.maxBodyBytes(),
                base.stopJobsOnShutdown(), base.tools());
        server = TandemServer.start(cfg);
        api = new TestApi(server.url());
        admin = Files.readString(server.adminTokenFile()).strip();
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    long submit(String token, List<String> argv, Map<String, Object> extra) {
        Map<String, Object> body = new HashMap<>(extra);
        body.put("argv", argv);
        body.put("workdir", dir.toString());
        return api.submit(token, TestApi.json(body));
    }

    String reason(long id) { return api.job(admin, id).path("reason").asText(); }

    Instant firstStart(long id) {
        for (JsonNode j : api.get("/history", admin).json().get("jobs")) {
            if (j.get("id").asLong() == id) return Instant.parse(j.get("first_started_at").asText());
        }
        throw new AssertionError("job " + id + " is not in the history");
    }

    @Test
    void dependenciesHoldsAndPrioritiesDecideTheOrderOnOneGpu() throws Exception {
        start("h100x1", 0);
        long a = submit(admin, List.of("sleep", "3"), Map.of());
        long b = submit(admin, List.of("true"), Map.of("after", List.of(a)));
        long held = submit(admin, List.of("true"), Map.of("hold", true));
        long low = submit(admin, List.of("true"), Map.of("priority", -5));
        long normal = submit(admin, List.of("true"), Map.of());
        long gate = submit(admin, List.of("true"), Map.of("hold", true));
        long afterGate = submit(admin, List.of("true"), Map.of("after", a + "," + gate));

        TestApi.await(LONG, "job " + b + " to say it waits for " + a, () -> reason(b).equals("waits for job(s) " + a + " (running) to succeed"));
        assertThat(reason(held)).isEqualTo("held; `tandem release " + held + "` lets it run");
        TestApi.Response holdRunning = api.post("/jobs/" + a + "/hold", admin, "{}");
        assertThat(holdRunning.status()).isEqualTo(409);
        assertThat(holdRunning.json().get("error").asText()).isEqualTo("job " + a + " is running; only a waiting job can be held");

        // cancelling what a job depends on cancels it, with the reason
        assertThat(api.post("/jobs/" + gate + "/cancel", admin, "{}").status()).isEqualTo(200);
        TestApi.await(LONG, "job " + afterGate + " to be cancelled", () -> api.state(admin, afterGate).equals("cancelled"));
        assertThat(reason(afterGate)).isEqualTo("cancelled: job " + gate + " cancelled, and this job runs only after it succeeds");

        TestApi.await(LONG, "a, b, normal and low to succeed", () -> List.of(a, b, normal, low).stream().allMatch(id -> api.state(admin, id).equals("succeeded")));
        // one GPU, FIFO: a; then b (its dependency met, submitted before normal); then normal (priority 0) before low (-5)
        List<Long> order = new ArrayList<>(List.of(a, b, normal, low));
        order.sort(Comparator.comparing(this::firstStart));
        assertThat(order).containsExactly(a, b, normal, low);
        assertThat(api.state(admin, held)).isEqualTo("pending");
        assertThat(api.job(admin, held).get("held").asBoolean()).isTrue();

        TestApi.Response released = api.post("/jobs/" + held + "/release", admin, "{}");
        assertThat(released.status()).isEqualTo(200);
        assertThat(released.json().get("held").asBoolean()).isFalse();
        TestApi.await(LONG, "the released job to succeed", () -> api.state(admin, held).equals("succeeded"));
        List<String> reasons = new ArrayList<>();
        for (JsonNode e : api.job(admin, held).get("events")) reasons.add(e.get("reason").asText());
        assertThat(reasons.subList(0, 2)).containsExactly("submitted held", "released by admin");
    }

    /**
     * A queue longer than the jobs the daemon explains in words (200): each job still has a reason, the ones far back
     * their position (told lazily), and a held job its hold; the dashboard lists them all in that order.
     */
    @Test
    void everyJobOfALongQueueKnowsWhyItWaitsOrWhereItStands() throws Exception {
        start("h100x1", 0);
        long running = submit(admin, List.of("sleep", "60"), Map.of());
        TestApi.await(LONG, "the first job to start", () -> !api.state(admin, running).equals("pending"));
        TestApi.Response r = api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("true"), "workdir", dir.toString(), "array", "0-239")));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        List<Long> ids = new ArrayList<>();
        r.json().get("array_job_ids").forEach(n -> ids.add(n.asLong()));
        long held = submit(admin, List.of("true"), Map.of("hold", true));
        TestApi.await(LONG, "the last member to be told its position", () -> reason(ids.getLast()).equals("position 240 in the queue"));
        // the held job came after the array: the round that placed the array may not have seen it yet
        TestApi.await(LONG, "the held job to be told why", () -> reason(held).startsWith("held;"));
        assertThat(reason(ids.getFirst())).as("the head is explained in words").doesNotStartWith("position").startsWith("waits");
        assertThat(reason(ids.get(199))).doesNotStartWith("position");
        assertThat(reason(ids.get(200))).isEqualTo("position 201 in the queue");
        assertThat(reason(held)).isEqualTo("held; `tandem release " + held + "` lets it run");
        JsonNode queue = api.get("/dashboard", admin).json().get("queue");
        assertThat(queue).hasSize(241);
        assertThat(queue.get(239).get("reason").asText()).isEqualTo("position 240 in the queue");
        assertThat(queue.get(240).get("reason").asText()).startsWith("held;");
        api.post("/jobs/" + running + "/cancel", admin, "");
        TestApi.await(LONG, "the queue to move up", () -> reason(ids.getLast()).equals("position 239 in the queue"));
    }

    @Test
    void anArrayRunsEachIndexWithItsVariablesAndAUserLimitKeepsItToOneGpuAtATime() throws Exception {
        start("h100x2", 0);
        String alice = user("alice");
        TestApi.Response limit = api.post("/users/alice/limits", admin, "{\"max_gpus\": 1}");
        assertThat(limit.status()).isEqualTo(200);
        assertThat(limit.json().get("max_gpus").asInt()).isEqualTo(1);

        TestApi.Response r = api.post("/jobs", alice, TestApi.json(Map.of("argv", List.of("sh", "-c", "echo index=$TANDEM_ARRAY_INDEX of $TANDEM_ARRAY_JOB_ID; sleep 1"),
                "workdir", dir.toString(), "array", "0-4:2", "name", "sweep")));
        assertThat(r.status()).isEqualTo(201);
        List<Long> ids = new ArrayList<>();
        r.json().get("array_job_ids").forEach(n -> ids.add(n.asLong()));
        assertThat(ids).hasSize(3);
        long arrayJob = ids.getFirst();
        TestApi.await(LONG, "a member to wait for alice's limit",
                () -> ids.stream().anyMatch(id -> reason(id).equals("waits: user alice may hold 1 GPU(s) at once; holds 1, this job needs 1")));
        TestApi.await(LONG, "the array to succeed", () -> ids.stream().allMatch(id -> api.state(admin, id).equals("succeeded")));

        JsonNode history = api.get("/history", alice).json().get("jobs");
        assertThat(history).hasSize(3);
        List<Instant[]> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            JsonNode j = history.get(i);
            assertThat(j.get("array_job").asLong()).isEqualTo(arrayJob);
            int index = j.get("array_index").asInt();
            assertThat(j.get("name").asText()).isEqualTo("sweep[" + index + "]");
            String log = api.get("/jobs/" + j.get("id").asLong() + "/logs", alice).json().get("data").asText();
            assertThat(log).contains("index=" + index + " of " + arrayJob);
            runs.add(new Instant[] {Instant.parse(j.get("first_started_at").asText()), Instant.parse(j.get("finished_at").asText())});
        }
        assertThat(history).extracting(j -> j.get("array_index").asInt()).containsExactlyInAnyOrder(0, 2, 4);
        runs.sort(Comparator.comparing(x -> x[0]));
        for (int i = 1; i < runs.size(); i++) {
            assertThat(runs.get(i)[0]).as("never two of alice's jobs at once, though two GPUs were free").isAfterOrEqualTo(runs.get(i - 1)[1]);
        }
        assertThat(api.get("/history?user=bob", alice).json().get("jobs")).as("a user sees only its own history").hasSize(3);
        assertThat(api.get("/history?since=1d", admin).json().get("jobs")).hasSize(3);
        assertThat(api.get("/history?until=2000-01-01", admin).json().get("jobs")).isEmpty();
    }

    @Test
    void badControlsAreRefusedNamingTheField() throws Exception {
        start("h100x1", 0);
        String alice = user("alice");
        String bob = user("bob");
        long bobs = submit(bob, List.of("sleep", "30"), Map.of());
        record Bad(String token, Map<String, Object> fields, int status, String field, String error) {}
        List<Bad> cases = List.of(
                new Bad(alice, Map.of("priority", 10), 403, "priority", "only an admin raises a job's priority above 0; users may lower their own (down to -1000)"),
                new Bad(admin, Map.of("priority", 5000), 400, "priority", "must be within -1000..1000, got 5000"),
                new Bad(admin, Map.of("priority", "high"), 400, "priority", "must be a whole number"),
                new Bad(alice, Map.of("after", List.of(bobs)), 400, "after", "no job " + bobs + " of yours"),
                new Bad(admin, Map.of("after", List.of(999_999)), 400, "after", "no job 999999 of yours"),
                new Bad(admin, Map.of("after", "1,x"), 400, "after", "job ids are whole numbers separated by commas, got 'x'"),
                new Bad(admin, Map.of("after", List.of(-1)), 400, "after[0]", "must be a job id"),
                new Bad(admin, Map.of("after", 12), 400, "after", "must be a list of job ids"),
                new Bad(admin, Map.of("hold", "yes"), 400, "hold", "must be true or false"),
                new Bad(admin, Map.of("array", "5-1"), 400, "array", "range 5-1 ends before it starts"),
                new Bad(admin, Map.of("array", "0-9:0"), 400, "array", "the step of 0-9:0 must be at least 1"),
                new Bad(admin, Map.of("array", "a-b"), 400, "array", "'a-b' is not an index, a range A-B or a range with a step A-B:S"),
                new Bad(admin, Map.of("array", "0-99999"), 400, "array", "at most 10000 jobs in one array"),
                new Bad(admin, Map.of("array", 3), 400, "array", "must be a string such as \"0-9\", \"1,3,5\" or \"0-20:5\""));
        for (Bad c : cases) {
            Map<String, Object> body = new HashMap<>(c.fields());
            body.put("argv", List.of("true"));
            body.put("workdir", dir.toString());
            TestApi.Response res = api.post("/jobs", c.token(), TestApi.json(body));
            assertThat(res.status()).as(c.fields().toString()).isEqualTo(c.status());
            assertThat(res.json().get("field").asText()).as(c.fields().toString()).isEqualTo(c.field());
            String prefix = c.status() == 400 ? c.field() + ": " : ""; // a bad value's message starts with its field
            assertThat(res.json().get("error").asText()).as(c.fields().toString()).isEqualTo(prefix + c.error());
        }
        long cancelled = submit(admin, List.of("true"), Map.of("hold", true));
        api.post("/jobs/" + cancelled + "/cancel", admin, "{}");
        TestApi.Response afterCancelled = api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("true"), "workdir", dir.toString(), "after", List.of(cancelled))));
        assertThat(afterCancelled.json().get("error").asText()).isEqualTo("after: job " + cancelled + " has cancelled; a job after it could never start");
        assertThat(api.post("/jobs/" + bobs + "/hold", alice, "{}").status()).as("another user's job is absent").isEqualTo(404);
        assertThat(api.post("/users/alice/limits", alice, "{\"max_gpus\": 9}").status()).isEqualTo(403);
        assertThat(api.post("/users/alice/limits", admin, "{\"max_gpus\": 0}").json().get("error").asText()).isEqualTo("max_gpus: must be a whole number of at least 1, or null");
        assertThat(api.post("/users/alice/limits", admin, "{\"gpus\": 1}").json().get("field").asText()).isEqualTo("gpus");
        assertThat(api.post("/users/alice/limits", admin, "{}").json().get("field").asText()).isEqualTo("max_gpus");
        assertThat(api.post("/users/nobody/limits", admin, "{\"max_gpus\": 1}").status()).isEqualTo(404);
        assertThat(api.get("/history?since=yesterday", admin).json().get("field").asText()).isEqualTo("since");
        assertThat(api.get("/history?limit=0", admin).status()).isEqualTo(400);
        assertThat(server.store().jobs(null, java.util.EnumSet.noneOf(dev.tandem.server.store.JobState.class), 0, 100)).as("nothing stored by a refusal").hasSize(2);
    }

    /** A user mapped to this test's own Unix account; its token. */
    String user(String name) {
        TestApi.Response r = api.post("/users", admin, TestApi.json(Map.of("name", name, "unix_user", System.getProperty("user.name"), "allow_root", true)));
        if (r.status() != 201) throw new AssertionError(r.body());
        return r.json().get("token").asText();
    }
}
