package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.server.TandemServer;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static dev.tandem.cli.CliTest.tandem;
import static org.assertj.core.api.Assertions.assertThat;

/** The client commands against a daemon on a fake GPU host: submit, queue, show, logs -f, gpus, cancel, with and without --json. */
class ServeClientTest {
    @TempDir static Path dir;
    static FakeGpuHost host;
    static TandemServer server;
    static String token;

    @BeforeAll
    static void start() throws Exception {
        host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        server = TandemServer.start(host.config(dir.resolve("state")));
        token = Files.readString(server.adminTokenFile()).strip();
    }

    /** {@code --token-file=F}, F a file holding {@code token}: how a script passes a token without showing it to others. */
    static String tokenFile(String token) {
        try {
            Path f = Files.createTempFile(dir, "token", ""); // mode 0600
            Files.writeString(f, token + "\n");
            return "--token-file=" + f;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    String[] with(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = args[0];
        all[1] = "--server=" + server.url();
        all[2] = tokenFile(token);
        System.arraycopy(args, 1, all, 3, args.length - 1);
        return all;
    }

    @Test
    void submitFollowShowAndQueueAJobThroughTheCli() throws Exception {
        CliTest.Run sub = tandem(with("submit", "--gpus", "1", "--memory", "4G", "--name", "cli-job", "--model", "ResNet18", "--batch-size", "64",
                "-e", "GREETING=hello world", "-e", "HOME", "--time-limit", "2h", "--", host.trainScript(), "6", "0.05", "--env"));
        assertThat(sub.code()).as(sub.err()).isZero();
        assertThat(sub.out()).matches("Submitted job \\d+\\R");
        long id = Long.parseLong(sub.out().replaceAll("\\D", ""));

        CliTest.Run logs = tandem(with("logs", String.valueOf(id), "-f", "--poll", "100"));
        assertThat(logs.code()).as(logs.err()).isZero();
        assertThat(logs.out()).contains("training for 6 iterations").contains("tandem:progress iter=6").contains("done");
        assertThat(tandem(with("logs", String.valueOf(id), "-f", "--poll", "0")).err()).contains("--poll: at least 100 ms").doesNotContain("\tat ");
        // a variable without '=' is refused before anything is sent; a name the daemon refuses is named with its option
        String unset = "TANDEM_TEST_UNSET_" + System.nanoTime();
        assertThat(tandem(with("submit", "-e", unset, "--", host.trainScript(), "1")).err())
                .isEqualTo("tandem: error: --env: '" + unset + "' is not set in your environment; give " + unset + "=VALUE, or export " + unset + " first" + System.lineSeparator());
        assertThat(tandem(with("submit", "-e", "=x", "--", host.trainScript(), "1")).err()).contains("--env (env.): '' is not a valid variable name");

        // a job that has not started has no output: said so, not an empty answer alone
        CliTest.Run held = tandem(with("submit", "--hold", "--name", "held-job", "--", host.trainScript(), "6", "0.05"));
        assertThat(held.code()).as(held.err()).isZero();
        String heldId = held.out().replaceAll("(?s)^Submitted job (\\d+).*", "$1");
        CliTest.Run none = tandem(with("logs", heldId));
        assertThat(none.code()).as(none.err()).isZero();
        assertThat(none.out()).isEmpty();
        assertThat(none.err()).contains("job " + heldId + " has not started yet (held");
        assertThat(tandem(with("cancel", heldId)).code()).isZero();

        TestApi.await(Duration.ofSeconds(20), "succeeded", () -> tandem(with("show", String.valueOf(id))).out().contains("State:       succeeded"));
        CliTest.Run show = tandem(with("show", String.valueOf(id)));
        assertThat(show.out()).contains("Job:         " + id + " (cli-job) of admin").contains("Workload:    ResNet18//bs64")
                .contains("Memory:      4096 MiB per GPU").contains("Time limit:  7200 s per run").contains("Exit code:   0")
                .contains("Progress:    iteration 6 (no length declared: scheduled as needing as long as it has run)").contains("-> profiling").contains("-> succeeded");
        JsonNode json = new ObjectMapper().readTree(tandem(with("show", String.valueOf(id), "--json")).out());
        assertThat(json.get("env").get("GREETING").asText()).isEqualTo("hello world");
        assertThat(json.get("env").get("HOME").asText()).as("-e NAME: its value in the submitter's environment").isEqualTo(System.getenv("HOME"));
        assertThat(json.get("argv").get(2).asText()).isEqualTo("0.05");
        assertThat(json.get("workdir").asText()).isEqualTo(Path.of("").toAbsolutePath().toString());

        assertThat(tandem(with("queue")).out()).doesNotContain("cli-job");
        assertThat(tandem(with("queue", "--all")).out()).contains("JOBID").contains("cli-job").contains("succeeded");
        assertThat(tandem(with("jobs", "--all")).out()).as("tandem jobs, as users of other schedulers type it").isEqualTo(tandem(with("queue", "--all")).out());
        JsonNode q = new ObjectMapper().readTree(tandem(with("queue", "--all", "--json")).out());
        assertThat(q.get("jobs").size()).isPositive();
    }

    /** tandem gpus while tandem holds both simulated GPUs for alice's waiting gang: for whom to alice, only that they are held to bob. */
    @Test
    void gpusSaysWhichGpusAreHeldAndForWhomToTheOwner(@TempDir Path own) throws Exception {
        dev.tandem.server.SimulatedServeTest.HeldGang h = dev.tandem.server.SimulatedServeTest.gangHeld(own);
        try (TandemServer held = h.server()) {
            String until = java.time.Instant.ofEpochMilli(h.t0() + 1_000_000).toString();
            CliTest.Run alice = tandem("gpus", "--server=" + held.url(), tokenFile(h.alice()));
            assertThat(alice.code()).as(alice.err()).isZero();
            assertThat(alice.out()).contains("GPU 0 held for job " + h.gang() + ", expected free at " + until + System.lineSeparator())
                    .contains("GPU 1 held for job " + h.gang() + ", expected free at " + until);
            CliTest.Run bob = tandem("gpus", "--server=" + held.url(), tokenFile(h.bob()));
            assertThat(bob.out()).contains("GPU 1 held for another user's job, expected free at " + until).doesNotContain("job " + h.gang());
        }
    }

    @Test
    void cancelGpusAndErrors() throws Exception {
        CliTest.Run sub = tandem(with("submit", "--model", "Sleeper", "--", "sleep", "300"));
        long id = Long.parseLong(sub.out().replaceAll("\\D", ""));
        TestApi.await(Duration.ofSeconds(20), "running", () -> tandem(with("queue")).out().matches("(?s).*" + id + "\\s+sleep\\s+admin\\s+(profiling|running).*"));
        CliTest.Run gpus = tandem(with("gpus"));
        assertThat(gpus.out()).contains("NVIDIA H100 80GB HBM3").contains("81559 MiB").contains(String.valueOf(id)).contains("sharing: time-slicing");
        assertThat(tandem(with("gpus", "--json")).out()).contains("\"uuid\" : \"GPU-5b2e8f1a-3c4d-4e6f-8a9b-0c1d2e3f4a5b\"");

        CliTest.Run cancel = tandem(with("cancel", String.valueOf(id)));
        assertThat(cancel.code()).as(cancel.err()).isZero();
        assertThat(cancel.out()).isEqualTo("Cancelled job " + id + System.lineSeparator());
        CliTest.Run again = tandem(with("cancel", String.valueOf(id)));
        assertThat(again.code()).isEqualTo(1);
        assertThat(again.err()).contains("tandem: error: job " + id + " has already cancelled");

        CliTest.Run badToken = tandem("queue", "--server", server.url(), "--token", "nope");
        assertThat(badToken.code()).isEqualTo(1);
        assertThat(badToken.err()).contains("invalid token");
        // a token on the command line works, and says that others can read it there
        CliTest.Run onTheCommandLine = tandem("queue", "--server", server.url(), "--token", token);
        assertThat(onTheCommandLine.code()).as(onTheCommandLine.err()).isZero();
        assertThat(onTheCommandLine.err()).isEqualTo("tandem: warning: --token shows the token to every user of this machine in the process list;"
                + " give it with --token-file FILE or $TANDEM_TOKEN instead" + System.lineSeparator());
        assertThat(tandem(with("queue")).err()).isEmpty();
        // the file, from standard input, and the file's mistakes
        java.io.InputStream stdin = System.in;
        try {
            System.setIn(new java.io.ByteArrayInputStream((token + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            CliTest.Run fromStdin = tandem("queue", "--server", server.url(), "--token-file", "-");
            assertThat(fromStdin.code()).as(fromStdin.err()).isZero();
            assertThat(fromStdin.err()).isEmpty();
        } finally {
            System.setIn(stdin);
        }
        Path shared = Files.writeString(dir.resolve("shared-token"), token);
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        CliTest.Run readable = tandem("queue", "--server", server.url(), "--token-file", shared.toString());
        assertThat(readable.code()).as(readable.err()).isZero();
        assertThat(readable.err()).isEqualTo("tandem: warning: --token-file " + shared + " is readable by other users (mode rw-r--r--); chmod 600 "
                + shared + System.lineSeparator());
        Path absent = dir.resolve("no-such-token");
        CliTest.Run noFile = tandem("queue", "--server", server.url(), "--token-file", absent.toString());
        assertThat(noFile.code()).isEqualTo(2);
        assertThat(noFile.err()).isEqualTo("tandem: error: --token-file: cannot read " + absent + ": no such file" + System.lineSeparator());
        Path empty = Files.writeString(dir.resolve("empty-token"), "\n");
        assertThat(tandem("queue", "--server", server.url(), "--token-file", empty.toString()).err()).contains("--token-file: " + empty + " holds no token");
        Path twoLines = Files.writeString(dir.resolve("two-tokens"), token + "\n" + token + "\n");
        assertThat(tandem("queue", "--server", server.url(), "--token-file", twoLines.toString()).err()).contains("holds more than one line");
        CliTest.Run both = tandem("queue", "--server", server.url(), "--token", token, tokenFile(token));
        assertThat(both.code()).isEqualTo(2);
        assertThat(both.err()).contains("give --token or --token-file, not both");
        CliTest.Run missing = tandem(with("show", "424242"));
        assertThat(missing.err()).contains("job 424242 not found");
        CliTest.Run down = tandem("queue", "--server", "http://127.0.0.1:1", "--token", "x");
        assertThat(down.err()).contains("cannot reach tandem serve at http://127.0.0.1:1");
        CliTest.Run noArgv = tandem(with("submit", "--gpus", "1"));
        assertThat(noArgv.code()).isEqualTo(2);
        CliTest.Run tooMany = tandem(with("submit", "--gpus", "4", "--", "true"));
        // the daemon names the API field it refuses; the CLI leads with the option that set it
        assertThat(tooMany.err()).contains("tandem: error: --gpus (gpus): a job runs on one node, and the largest node has 1 GPU(s); got 4");
        assertThat(tandem(with("submit", "--memory", "900G", "--", "true")).err()).contains("tandem: error: --memory (memory_mib): must be within 0..");
        assertThat(tandem(with("submit", "--limit-processes", "0", "--", "true")).err()).contains("tandem: error: --limit-processes (limits.processes): ");
        CliTest.Run badMemory = tandem(with("submit", "--memory", "lots", "--", "true"));
        assertThat(badMemory.err()).contains("'lots' is not a memory size");
    }

    /** submit --hold/--array/--after/--priority, hold, release, show, history (table and CSV), users limit. */
    @Test
    void jobControlsAndAccountingFromTheCli() throws Exception {
        CliTest.Run array = tandem(with("submit", "--hold", "--array", "0-1", "--priority", "-3", "--name", "sweep", "--model", "Echo", "--",
                "sh", "-c", "echo index $TANDEM_ARRAY_INDEX"));
        assertThat(array.code()).as(array.err()).isZero();
        assertThat(array.out()).matches("Submitted job array (\\d+): 2 jobs, \\1\\.\\.\\d+\\R");
        long first = Long.parseLong(array.out().replaceAll("^Submitted job array (\\d+):.*\\R", "$1"));
        long second = first + 1;
        CliTest.Run after = tandem(with("submit", "-d", first + "," + second, "--model", "Echo", "--", "echo", "after"));
        long afterId = Long.parseLong(after.out().replaceAll("\\D", ""));
        TestApi.await(Duration.ofSeconds(20), "the held job's reason", () -> tandem(with("show", String.valueOf(first))).out().contains("Reason:      held;"));
        CliTest.Run show = tandem(with("show", String.valueOf(first)));
        assertThat(show.out()).contains("Priority:    -3").contains("Held:        yes (tandem release " + first + ")")
                .contains("Array:       index 0 of job array " + first).contains("Job:         " + first + " (sweep[0]) of admin");
        assertThat(tandem(with("show", String.valueOf(afterId))).out()).contains("After:       jobs [" + first + "," + second + "] succeed");

        assertThat(tandem(with("release", String.valueOf(first), String.valueOf(second))).out())
                .isEqualTo("Released job " + first + System.lineSeparator() + "Released job " + second + System.lineSeparator());
        TestApi.await(Duration.ofSeconds(30), "all three to succeed",
                () -> tandem(with("history")).out().lines().filter(l -> l.matches("(" + first + "|" + second + "|" + afterId + ")\\s.*succeeded.*")).count() == 3);
        CliTest.Run table = tandem(with("history", "--since", "1h"));
        assertThat(table.out()).contains("JOBID").contains("WAIT").contains("GPU-H").containsPattern(first + "\\s+sweep\\[0\\]\\s+admin\\s+succeeded");
        CliTest.Run csv = tandem(with("history", "--csv"));
        assertThat(csv.out().lines().findFirst().orElseThrow()).startsWith("id,name,owner,state,workload,gpus,submitted_at,first_started_at,finished_at,wait_s");
        assertThat(csv.out()).containsPattern("(?m)^" + first + ",sweep\\[0\\],admin,succeeded,Echo//bs0,1,");
        assertThat(tandem(with("history", "--since", "last tuesday")).err()).contains("since: not a time: 'last tuesday'");

        CliTest.Run hold = tandem(with("hold", String.valueOf(afterId)));
        assertThat(hold.code()).isEqualTo(1);
        assertThat(hold.err()).contains("job " + afterId + " is succeeded; only a waiting job can be held");

        String me = System.getProperty("user.name");
        users(token, "add", "dave", "--unix-user", me, "--allow-root"); // the test's own account, root in CI
        assertThat(users(token, "limit", "dave", "--max-gpus", "2").out()).isEqualTo("GPU limit of dave: 2" + System.lineSeparator());
        assertThat(users(token, "list").out()).containsPattern("dave\\s+user\\s+" + me + "\\s+enabled\\s+2\\s");
        assertThat(users(token, "limit", "dave", "--max-gpus", "default").out()).isEqualTo("GPU limit of dave: the daemon's default" + System.lineSeparator());
        assertThat(users(token, "limit", "dave", "--max-gpus", "many").err()).contains("--max-gpus: a number of GPUs (at least 1) or 'default', got 'many'");
        assertThat(users(token, "limit", "dave", "--max-gpus", "0").err()).contains("--max-gpus: a number of GPUs (at least 1) or 'default', got '0'");
        assertThat(users(token, "show", "dave").out()).containsPattern("admin\\s+limit-set\\s+GPU limit: 2");
    }

    @Test
    void theAdminTokenFileAndServerUrlFileAreFoundThroughTheStateDirectory() {
        CliTest.Run r = tandem("gpus", "--state-dir", dir.resolve("state").toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("NVIDIA H100");
    }

    /** Through the daemon's Unix socket no token is needed; the socket in the state directory is found without options. */
    @Test
    void theUnixSocketNeedsNoTokenAndIsFoundInTheStateDirectory() throws Exception {
        Path state = dir.resolve("state-socket");
        Path socket = state.resolve("tandem.sock");
        FakeGpuHost other = FakeGpuHost.install(dir.resolve("host-a100"), "a100-mixed"); // GPUs of its own: the class's daemon holds the H100's lock
        try (TandemServer s = TandemServer.start(other.config(state).withSocket(socket))) {
            CliTest.Run viaSocket = tandem("gpus", "--socket", socket.toString());
            assertThat(viaSocket.code()).as(viaSocket.err()).isZero();
            assertThat(viaSocket.out()).contains("NVIDIA A100");
            // neither the token nor the URL file is needed: the socket in the state directory is used first
            Files.delete(state.resolve("admin.token"));
            Files.delete(state.resolve("server.url"));
            CliTest.Run found = tandem("users", "list", "--state-dir", state.toString());
            assertThat(found.code()).as(found.err()).isZero();
            assertThat(found.out()).containsPattern("admin\\s+admin\\s+");
        }
        CliTest.Run gone = tandem("gpus", "--socket", socket.toString());
        assertThat(gone.code()).isNotZero();
        assertThat(gone.err()).contains("cannot reach tandem serve at the Unix socket " + socket);
    }

    CliTest.Run users(String token, String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "users";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--server=" + server.url();
        all[args.length + 2] = tokenFile(token);
        return tandem(all);
    }

    /** add, list, show (the audit trail with the real actor), rotate-token, disable, enable; the last admin stays. */
    @Test
    void usersAreManagedFromTheCli() {
        String me = System.getProperty("user.name");
        boolean root = "root".equals(me);
        if (root) { // as CI runs: the daemon is root, so mapping a user to the test's own account needs --allow-root
            CliTest.Run refused = users(token, "add", "carol", "--unix-user", me);
            assertThat(refused.code()).isNotZero();
            assertThat(refused.err()).contains("--unix-user (unix_user): 'root' is root (uid 0)").contains("--allow-root");
        }
        CliTest.Run add = users(token, "add", "carol", "--unix-user", me, "--allow-root");
        assertThat(add.code()).as(add.err()).isZero();
        if (root) assertThat(add.err()).startsWith("Warning: its jobs run as root (uid 0)");
        else assertThat(add.err()).isEmpty();
        assertThat(add.out()).startsWith("Created user carol (user, Unix account " + me + "); its token, shown only now:");
        String carol = add.out().lines().reduce((a, b) -> b).orElseThrow().strip();
        assertThat(tandem("queue", "--server", server.url(), "--token", carol).code()).isZero();

        assertThat(users(token, "list").out()).contains("USER").containsPattern("carol\\s+user\\s+" + me + "\\s+enabled");
        assertThat(users(carol, "list").err()).contains("only an admin lists users");

        CliTest.Run rotated = users(carol, "rotate-token", "carol");
        assertThat(rotated.code()).as(rotated.err()).isZero();
        String carol2 = rotated.out().lines().reduce((a, b) -> b).orElseThrow().strip();
        assertThat(tandem("queue", "--server", server.url(), "--token", carol).err()).contains("invalid token");
        CliTest.Run withNewToken = tandem("queue", "--server", server.url(), "--token", carol2);
        assertThat(withNewToken.code()).as("rotate-token printed %s; queue with its last line: %s", rotated.out(), withNewToken.err()).isZero();

        assertThat(users(token, "disable", "carol").out()).isEqualTo("Disabled user carol" + System.lineSeparator());
        assertThat(tandem("queue", "--server", server.url(), "--token", carol2).err())
                .contains("user carol is disabled; an admin can enable it again (tandem users enable carol)").doesNotContain("give a token");
        assertThat(tandem("queue", "--server", server.url(), "--token", "wrong").err()).contains("invalid token (give a token with --token-file, TANDEM_TOKEN or --token");
        assertThat(users(token, "enable", "carol").code()).isZero();
        assertThat(tandem("queue", "--server", server.url(), "--token", carol2).code()).isZero();

        CliTest.Run lastAdmin = users(token, "disable", "admin");
        assertThat(lastAdmin.code()).isEqualTo(1);
        assertThat(lastAdmin.err()).contains("user admin is the last enabled admin; create or enable another admin first");

        CliTest.Run show = users(token, "show", "carol");
        assertThat(show.out()).startsWith("carol: user, Unix account " + me).containsPattern("admin\\s+created")
                .containsPattern("carol\\s+token-rotated").containsPattern("admin\\s+disabled").containsPattern("admin\\s+enabled");
        assertThat(users(carol2, "show", "admin").err()).contains("user admin not found");
        assertThat(users(token, "show", "nobody").err()).contains("user nobody not found");
    }
}
