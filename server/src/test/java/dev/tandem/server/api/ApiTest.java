package dev.tandem.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.TandemServer;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Authentication, authorisation and validation of the HTTP API, against one daemon on two fake GPUs. */
class ApiTest {
    @TempDir static Path dir;
    static FakeGpuHost host;
    static TandemServer server;
    static TestApi api;
    static String admin, alice, bob;

    @BeforeAll
    static void start() throws Exception {
        host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        server = TandemServer.start(host.config(dir.resolve("state")));
        api = new TestApi(server.url());
        admin = Files.readString(server.adminTokenFile()).strip();
        alice = createUser("alice", "user");
        bob = createUser("bob", "user");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String createUser(String name, String role) {
        // mapped to the test's own account: a root daemon would otherwise look for a Unix account named like the user
        TestApi.Response r = api.post("/users", admin, TestApi.json(Map.of("name", name, "role", role, "unix_user", System.getProperty("user.name"), "allow_root", true)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        assertThat(r.json().get("role").asText()).isEqualTo(role);
        return r.json().get("token").asText();
    }

    static String job(String... argv) {
        return TestApi.json(Map.of("argv", List.of(argv), "workdir", dir.toString(), "signature", Map.of("model", "Idle")));
    }

    @Test
    void everyEndpointButMetricsNeedsAValidToken() {
        for (String path : List.of("/jobs", "/jobs/1", "/gpus", "/profiles", "/openapi.json", "/jobs/1/logs", "/history", "/dashboard",
                "/dashboard/stream", "/jobs/1/speeds", "/jobs/1/logs/stream")) {
            TestApi.Response none = api.get(path, null);
            assertThat(none.status()).as(path).isEqualTo(401);
            assertThat(none.json().get("error").asText()).contains("missing bearer token");
            assertThat(api.get(path, "not-a-token").status()).as(path).isEqualTo(401);
        }
        TestApi.Response bad = api.post("/jobs", "wrong", job("true"));
        assertThat(bad.status()).isEqualTo(401);
        assertThat(bad.json().get("error").asText()).isEqualTo("invalid token");
        assertThat(api.get("/metrics", null).status()).isEqualTo(200);
        // Prometheus' conventional path and the probes need no token either
        TestApi.Response metrics = api.getRoot("/metrics");
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.body()).contains("tandem_queue_length").contains("tandem_decisions_rejected_total");
        assertThat(api.getRoot("/healthz").json().get("status").asText()).isEqualTo("ok");
        // the dashboard's page is public (its data is not); an unknown page is still a JSON 404
        TestApi.Response page = api.getRoot("/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("<script type=\"module\" src=\"app.js\">");
        assertThat(api.getRoot("/app.js").status()).isEqualTo(200);
        assertThat(api.getRoot("/no-such-page").status()).isEqualTo(404);
        TestApi.await(java.time.Duration.ofSeconds(10), "the daemon to be ready", () -> api.getRoot("/readyz").status() == 200);
        assertThat(api.getRoot("/readyz").json().get("status").asText()).isEqualTo("ready");
        JsonNode openapi = api.get("/openapi.json", alice).json();
        assertThat(openapi.get("openapi").asText()).startsWith("3.");
        assertThat(openapi.get("paths").has("/jobs/{id}/logs")).isTrue();
    }

    @Test
    void aUserSeesAndCancelsOnlyItsOwnJobsAndAnAdminSeesAll() {
        long mine = api.submit(alice, job("sleep", "30"));
        TestApi.Response other = api.get("/jobs/" + mine, bob);
        assertThat(other.status()).isEqualTo(404);
        assertThat(other.json().get("error").asText()).isEqualTo("job " + mine + " not found");
        assertThat(api.post("/jobs/" + mine + "/cancel", bob, "").status()).isEqualTo(404);
        assertThat(api.get("/jobs/" + mine + "/logs", bob).status()).isEqualTo(404);
        assertThat(api.get("/jobs/" + mine + "/speeds", bob).status()).isEqualTo(404);
        assertThat(api.get("/jobs/" + mine + "/logs/stream", bob).status()).isEqualTo(404);
        assertThat(api.get("/jobs/x/speeds", bob).json().get("field").asText()).isEqualTo("id");
        assertThat(api.post("/jobs/" + mine + "/hold", bob, "").status()).isEqualTo(404);
        assertThat(api.get("/jobs", bob).json().get("jobs")).extracting(j -> j.get("id").asLong()).doesNotContain(mine);
        assertThat(api.get("/jobs", alice).json().get("jobs")).extracting(j -> j.get("id").asLong()).contains(mine);
        assertThat(api.get("/jobs?user=alice", admin).json().get("jobs")).extracting(j -> j.get("owner").asText()).containsOnly("alice");
        assertThat(api.get("/jobs/" + mine, admin).json().get("owner").asText()).isEqualTo("alice");
        assertThat(api.post("/jobs/" + mine + "/cancel", alice, "").json().get("state").asText()).isEqualTo("cancelled");

        TestApi.Response notAdmin = api.post("/users", alice, TestApi.json(Map.of("name", "mallory")));
        assertThat(notAdmin.status()).isEqualTo(403);
        assertThat(api.post("/users", admin, TestApi.json(Map.of("name", "alice"))).status()).isEqualTo(409);
        assertThat(api.get("/jobs/999999", admin).status()).isEqualTo(404);
    }

    /** A secret handed to a job through its environment ({@code submit --env NAME}) stays its owner's, also from an admin. */
    @Test
    void aJobsVariablesValuesGoToItsOwnerOnly() {
        long id = api.submit(alice, TestApi.json(Map.of("argv", List.of("sleep", "30"), "workdir", dir.toString(), "signature", Map.of("model", "Idle"),
                "env", Map.of("API_KEY", "s3cr3t", "MODE", "fast"))));
        try {
            JsonNode own = api.get("/jobs/" + id, alice).json().get("env");
            assertThat(own.get("API_KEY").asText()).isEqualTo("s3cr3t");
            assertThat(own.get("MODE").asText()).isEqualTo("fast");
            JsonNode shown = api.get("/jobs/" + id, admin).json().get("env");
            assertThat(shown.has("API_KEY") && shown.has("MODE")).as("the names, for an admin").isTrue();
            assertThat(shown.get("API_KEY").isNull() && shown.get("MODE").isNull()).as("no values, for an admin").isTrue();
            JsonNode listed = api.get("/jobs?user=alice", admin).json().get("jobs");
            assertThat(listed.toString()).doesNotContain("s3cr3t");
            assertThat(api.post("/jobs/" + id + "/hold", admin, "").body()).doesNotContain("s3cr3t");
            assertThat(api.post("/jobs/" + id + "/cancel", admin, "").body()).doesNotContain("s3cr3t");
        } finally {
            api.post("/jobs/" + id + "/cancel", alice, "");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not JSON                 | {"argv": ["true"],       | 400 | not valid JSON |
            trailing garbage         | {"argv": ["true"]} x     | 400 | not valid JSON |
            duplicate field          | {"argv": ["a"], "argv": ["b"]} | 400 | Duplicate field |
            not an object            | ["true"]                 | 400 | must be a JSON object |
            no argv                  | {"name": "x"}            | 400 | argv: required | argv
            argv as a string         | {"argv": "python train.py"} | 400 | never passed to a shell | argv
            empty argv               | {"argv": []}             | 400 | must not be empty | argv
            number in argv           | {"argv": ["python", 3]}  | 400 | argv[1]: must be a string | argv[1]
            blank program            | {"argv": [" "]}          | 400 | argv[0]: the program must not be blank | argv[0]
            unknown field            | {"argv": ["true"], "cmd": "x"} | 400 | cmd: unknown field | cmd
            gpus not a number        | {"argv": ["true"], "gpus": "1"} | 400 | gpus: must be a whole number | gpus
            fractional gpus          | {"argv": ["true"], "gpus": 1.5} | 400 | gpus: must be a whole number | gpus
            too many gpus            | {"argv": ["true"], "gpus": 3} | 400 | gpus: a job runs on one node, and the largest node has 2 GPU(s); got 3 | gpus
            zero gpus                | {"argv": ["true"], "gpus": 0} | 400 | gpus: must be at least 1, got 0 | gpus
            time limit not a duration | {"argv": ["true"], "time_limit": "soon"} | 400 | time_limit: 'soon' is not a duration | time_limit
            time limit too short     | {"argv": ["true"], "time_limit": "500ms"} | 400 | time_limit: must be at least 1s, got 500ms | time_limit
            time limit an object     | {"argv": ["true"], "time_limit": {"h": 2}} | 400 | time_limit: must be a duration | time_limit
            negative memory          | {"argv": ["true"], "memory_mib": -1} | 400 | memory_mib: must be within 0..81559 | memory_mib
            memory over the GPU      | {"argv": ["true"], "memory_mib": 100000} | 400 | memory_mib | memory_mib
            relative workdir         | {"argv": ["true"], "workdir": "tmp"} | 400 | workdir: must be an absolute path | workdir
            missing workdir          | {"argv": ["true"], "workdir": "/no/such/dir"} | 400 | workdir: no such directory | workdir
            env not an object        | {"argv": ["true"], "env": ["A=1"]} | 400 | env: must be an object | env
            bad env name             | {"argv": ["true"], "env": {"1A": "x"}} | 400 | env.1A: '1A' is not a valid variable name | env.1A
            empty env name           | {"argv": ["true"], "env": {"": "x"}} | 400 | env.: '' is not a valid variable name | env.
            reserved env             | {"argv": ["true"], "env": {"CUDA_VISIBLE_DEVICES": "1"}} | 400 | set by tandem | env.CUDA_VISIBLE_DEVICES
            env value not a string   | {"argv": ["true"], "env": {"A": 1}} | 400 | env.A: must be a string | env.A
            zero iterations          | {"argv": ["true"], "iterations": 0} | 400 | iterations: must be within | iterations
            signature without model  | {"argv": ["true"], "signature": {"dataset": "x"}} | 400 | signature.model: required | signature.model
            slash in signature       | {"argv": ["true"], "signature": {"model": "a/b"}} | 400 | signature.model | signature.model
            unknown signature field  | {"argv": ["true"], "signature": {"model": "m", "gpu": 1}} | 400 | signature.gpu: unknown field | signature.gpu
            amp not a boolean        | {"argv": ["true"], "signature": {"model": "m", "amp": "yes"}} | 400 | signature.amp | signature.amp
            control chars in name    | {"argv": ["true"], "name": "a\\nb"} | 400 | name: must not contain control characters | name
            output in a missing dir  | {"argv": ["true"], "output": "/no/such/dir/out.log"} | 400 | output: no such directory on the server: /no/such/dir | output
            output a directory       | {"argv": ["true"], "output": "logs/"} | 400 | output: must name a file | output
            output not a string      | {"argv": ["true"], "output": 5} | 400 | output: must be a string | output
            limits not an object     | {"argv": ["true"], "limits": 64} | 400 | limits: must be an object | limits
            unknown limit            | {"argv": ["true"], "limits": {"cpus": 2}} | 400 | limits.cpus: unknown limit | limits.cpus
            zero processes           | {"argv": ["true"], "limits": {"processes": 0}} | 400 | limits.processes: must be within 1..4194304 | limits.processes
            memory limit as text     | {"argv": ["true"], "limits": {"host_memory_mib": "8G"}} | 400 | limits.host_memory_mib: must be a whole number | limits.host_memory_mib
            """)
    void malformedSubmissionsAreRefusedNamingTheField(String what, String body, int status, String message, String field) {
        TestApi.Response r = api.post("/jobs", alice, body);
        assertThat(r.status()).as(what + ": " + r.body()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).as(what).contains(message);
        if (field != null) assertThat(r.json().get("field").asText()).as(what).isEqualTo(field);
    }

    @Test
    void bodiesAreLimitedInSizeAndTypeAndBadQueriesAreRefused() {
        String big = TestApi.json(Map.of("argv", List.of("echo", "x".repeat(70_000))));
        // sent as a careful client sends a large body (Expect: 100-continue): the server's 413 comes before the body; sent
        // at once, the server may answer and close before the client has written it all, and the client then sees
        // the connection reset instead of the answer (it failed CI once: "header parser received no bytes")
        TestApi.Response tooBig = api.send(api.request("/jobs", alice).expectContinue(true).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(big)));
        assertThat(tooBig.status()).isEqualTo(413);
        assertThat(tooBig.json().get("error").asText()).contains("limit is 65536");
        TestApi.Response xml = api.send(api.request("/jobs", alice).header("Content-Type", "application/xml")
                .POST(HttpRequest.BodyPublishers.ofString("<job/>")));
        assertThat(xml.status()).isEqualTo(415);
        assertThat(api.post("/jobs", alice, "").json().get("error").asText()).contains("empty");
        assertThat(api.get("/jobs?state=bogus", alice).json().get("field").asText()).isEqualTo("state");
        assertThat(api.get("/jobs?limit=0", alice).status()).isEqualTo(400);
        assertThat(api.get("/jobs/abc", alice).json().get("field").asText()).isEqualTo("id");
        assertThat(api.get("/nothing", alice).status()).isEqualTo(404);
        assertThat(api.post("/users", admin, TestApi.json(Map.of("name", "Bad Name"))).json().get("field").asText()).isEqualTo("name");
        assertThat(api.post("/users", admin, TestApi.json(Map.of("name", "carol", "role", "root"))).json().get("field").asText()).isEqualTo("role");
        TestApi.Response noAccount = api.post("/users", admin, TestApi.json(Map.of("name", "carol", "unix_user", "no-such-account-here")));
        assertThat(noAccount.status()).isEqualTo(400);
        assertThat(noAccount.json().get("field").asText()).isEqualTo("unix_user");
        assertThat(api.post("/users", admin, TestApi.json(Map.of("name", "carol", "unix_user", 7))).json().get("error").asText())
                .isEqualTo("unix_user: must be a string, a Unix account name");
        assertThat(api.post("/users/nobody/disable", admin, "").status()).isEqualTo(404);
        assertThat(api.post("/users/nobody/rotate-token", admin, "").status()).isEqualTo(404);
        assertThat(api.post("/users/bob/disable", alice, "").status()).isEqualTo(403);
        assertThat(api.post("/users/bob/rotate-token", alice, "").status()).isEqualTo(403);
        assertThat(api.get("/users/bob", alice).status()).as("another user's record is absent to alice").isEqualTo(404);
        assertThat(api.get("/users/alice", alice).json().get("events").get(0).get("actor").asText()).isEqualTo("admin");
        assertThat(api.get("/users", alice).status()).isEqualTo(403);
    }

    @Test
    void gpusAndLogsAreServed() {
        JsonNode gpus = api.get("/gpus", alice).json();
        assertThat(gpus.get("gpus")).hasSize(2);
        assertThat(gpus.get("gpus").get(1).get("uuid").asText()).isEqualTo("GPU-9e7d6c5b-4a39-4281-b7c6-d5e4f3a2b1c0");
        assertThat(gpus.get("gpus").get(0).get("memory_total_mib").asLong()).isEqualTo(81559);
        assertThat(gpus.get("sharing").asText()).isEqualTo("time-slicing");

        long id = api.submit(alice, job("printf", "h\u00e9llo\\nw\u00f6rld\\n"));
        TestApi.await(java.time.Duration.ofSeconds(30), "job to succeed", () -> api.state(alice, id).equals("succeeded"));
        TestApi.await(java.time.Duration.ofSeconds(30), "output complete", () -> api.get("/jobs/" + id + "/logs", alice).json().get("complete").asBoolean());
        StringBuilder all = new StringBuilder();
        long offset = 0;
        for (int i = 0; i < 200; i++) { // two bytes at a time: chunks never split a character
            JsonNode chunk = api.get("/jobs/" + id + "/logs?offset=" + offset + "&limit=2", alice).json();
            all.append(chunk.get("data").asText());
            if (chunk.get("next_offset").asLong() == offset) break;
            offset = chunk.get("next_offset").asLong();
        }
        assertThat(all.toString()).endsWith("h\u00e9llo\nw\u00f6rld\n").doesNotContain("\uFFFD");

        // argv is run as given: no shell expands, substitutes or splits anything
        long literal = api.submit(alice, job("echo", "$HOME && `id` ; *", "two words"));
        TestApi.await(java.time.Duration.ofSeconds(30), "output complete", () -> api.get("/jobs/" + literal + "/logs", alice).json().get("complete").asBoolean());
        assertThat(api.get("/jobs/" + literal + "/logs", alice).json().get("data").asText()).contains("\n$HOME && `id` ; * two words\n");
    }

    /**
     * A handler that needs no body (cancel, hold, a 404) must still read the one sent, or the server drops the kept-alive
     * connection after its response and a client reusing it fails on its next request ("header parser received no
     * bytes" in the JDK's client). The body arrives after the headers, as it may on a busy machine.
     */
    @ParameterizedTest
    @CsvSource({"admin, HTTP/1.1 404", "wrong, HTTP/1.1 401"})
    void aBodyTheHandlerDoesNotNeedIsReadSoTheConnectionStaysUsable(String who, String answer) throws Exception {
        String token = who.equals("admin") ? admin : who;
        java.net.URI url = java.net.URI.create(server.url());
        try (java.net.Socket s = new java.net.Socket(url.getHost(), url.getPort())) {
            s.setSoTimeout(10_000);
            var out = s.getOutputStream();
            var in = new java.io.BufferedInputStream(s.getInputStream());
            out.write(("POST /api/v1/jobs/999999/cancel HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + token
                    + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(300);
            out.write("{}".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            assertThat(RawHttp.readResponse(in)).startsWith(answer);
            out.write("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            assertThat(RawHttp.readResponse(in)).as("a second request on the same connection").startsWith("HTTP/1.1 200");
        }
    }
}
