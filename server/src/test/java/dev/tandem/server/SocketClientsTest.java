package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.server.exec.UnixAccount;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Local clients through the daemon's Unix socket: no token, the caller is the API user mapped to the Unix account
 * the kernel reports for the connecting process (SO_PEERCRED). Real processes of two Unix accounts connect with curl
 * under setpriv (accounts made with useradd, as .ci/run runs the tests as root).
 */
class SocketClientsTest {
    static final String U1 = UnixUsersTest.U1, U2 = UnixUsersTest.U2;
    @TempDir Path dir;
    /** A directory every account can reach (the @TempDir is root's alone). */
    Path open;
    TandemServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) server.close();
        if (open != null) {
            try (var files = Files.walk(open)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void eachLocalCallerIsTheUserMappedToItsUnixAccountAndATokenChangesNothing() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "connecting as other accounts needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/useradd")) && Files.isExecutable(Path.of("/usr/bin/curl")), "needs useradd and curl");
        UnixUsersTest.ensureAccount(U1);
        UnixUsersTest.ensureAccount(U2);
        open = Files.createTempDirectory(Path.of("/tmp"), "tandem-sock-");
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path socket = open.resolve("run").resolve("tandem.sock");
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        server = TandemServer.start(host.config(dir.resolve("state")).withSocket(socket));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-rw-rw-");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent()))).isEqualTo("rwxr-xr-x");
        String admin = Files.readString(server.adminTokenFile()).strip();

        Curl t1 = curl(socket, U1), t2 = curl(socket, U2), root = curl(socket, null);
        assertThat(t1.get("/jobs")).satisfies(r -> {
            assertThat(r.status).isEqualTo(401);
            assertThat(r.json.get("error").asText()).isEqualTo("no API user runs as Unix account " + U1
                    + "; an admin can add one: tandem users add NAME --unix-user " + U1);
        });
        // root is the daemon's own account, which the first admin is mapped to
        assertThat(root.get("/users").status).isEqualTo(200);
        assertThat(root.post("/users", Map.of("name", "alice", "unix_user", U1)).status).isEqualTo(201);
        assertThat(root.post("/users", Map.of("name", "bob", "unix_user", U2)).status).isEqualTo(201);

        Reply submitted = t1.post("/jobs", Map.of("argv", List.of("/bin/sleep", "30"), "workdir", open.toString()));
        assertThat(submitted.status).as(submitted.body).isEqualTo(201);
        assertThat(submitted.json.get("owner").asText()).isEqualTo("alice");
        long id = submitted.json.get("id").asLong();
        assertThat(t2.get("/jobs/" + id).status).as("bob does not see alice's job").isEqualTo(404);
        assertThat(t2.post("/jobs/" + id + "/cancel", Map.of()).status).isEqualTo(404);
        // a token sent over the socket is not looked at: not even the admin's makes t1 an admin
        assertThat(t1.withToken(admin).get("/users").status).isEqualTo(403);
        assertThat(t1.post("/jobs/" + id + "/cancel", Map.of()).status).isEqualTo(200);

        assertThat(root.post("/users/alice/disable", Map.of()).status).isEqualTo(200);
        assertThat(t1.get("/jobs").json.get("error").asText()).isEqualTo("user alice (Unix account " + U1 + ") is disabled");
        // TCP still takes tokens
        assertThat(new TestApi(server.url()).get("/users", admin).status()).isEqualTo(200);
        assertThat(new TestApi(server.url()).get("/users", null).status()).isEqualTo(401);
    }

    @Test
    void aSocketInUseIsRefusedAndOneLeftByAKilledDaemonIsReplaced() throws Exception {
        Path socket = dir.resolve("s").resolve("tandem.sock");
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        // a socket file nobody listens on, as a daemon killed with -9 leaves it
        Files.createDirectories(socket.getParent());
        try (ServerSocketChannel left = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            left.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();
        server = TandemServer.start(host.config(dir.resolve("state")).withSocket(socket));
        assertThat(curl(socket, null).get("/users").status).isEqualTo(200);

        assertThatThrownBy(() -> TandemServer.start(host.config(dir.resolve("state2")).withSocket(socket)))
                .isInstanceOf(StartupException.class)
                .hasMessage("--socket " + socket + ": another tandem serve listens there; stop it, or give this one another --socket (or --socket none)");
        Path file = Files.writeString(dir.resolve("not-a-socket"), "x");
        assertThatThrownBy(() -> TandemServer.start(host.config(dir.resolve("state3")).withSocket(file)))
                .hasMessage("--socket " + file + ": a file that is not a socket is in the way; remove it or give another --socket");
        Path tooLong = dir.resolve("x".repeat(120));
        assertThatThrownBy(() -> TandemServer.start(host.config(dir.resolve("state4")).withSocket(tooLong)))
                .hasMessageStartingWith("--socket " + tooLong + ": longer than the 107 bytes a Unix socket path may have");
        for (String refused : List.of("state2", "state3", "state4")) {
            assertThat(dir.resolve(refused)).as("a start refused for its socket writes nothing").doesNotExist();
        }
        assertThat(Files.readString(file)).as("nothing in the way is touched").isEqualTo("x");
        server.close();
        server = null;
        assertThat(socket).as("a daemon that stops removes its socket").doesNotExist();
    }

    record Reply(int status, String body, JsonNode json) {}

    /** curl through the socket as an account (null: as this test, root), optionally sending a bearer token. */
    record Curl(Path socket, String account, String token) {
        Reply get(String path) throws Exception { return run(path, null); }

        Reply post(String path, Object body) throws Exception { return run(path, new ObjectMapper().writeValueAsString(body)); }

        Curl withToken(String t) { return new Curl(socket, account, t); }

        private Reply run(String path, String body) throws Exception {
            List<String> cmd = new ArrayList<>();
            if (account != null) {
                UnixAccount a = UnixAccount.lookup(account).orElseThrow();
                cmd.addAll(List.of("setpriv", "--reuid=" + a.uid(), "--regid=" + a.gid(), "--clear-groups", "--"));
            }
            cmd.addAll(List.of("curl", "-s", "--unix-socket", socket.toString(), "-w", "\n%{http_code}"));
            if (token != null) cmd.addAll(List.of("-H", "Authorization: Bearer " + token));
            if (body != null) cmd.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", body));
            cmd.add("http://localhost/api/v1" + path);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(String.join(" ", cmd) + ": " + out).isZero();
            int nl = out.lastIndexOf('\n');
            String text = out.substring(0, nl);
            return new Reply(Integer.parseInt(out.substring(nl + 1).strip()), text, new ObjectMapper().readTree(text));
        }
    }

    static Curl curl(Path socket, String account) { return new Curl(socket, account, null); }
}
