package dev.tandem.server;

import dev.tandem.server.exec.UnixAccount;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * API users mapped to Unix accounts: a root daemon runs each job with its owner's uid, gid and groups, in a clean
 * environment, so a job cannot read the admin token, the store, another user's files or logs. The accounts are
 * created here with useradd (as .ci/run runs the tests as root); without root the test is skipped, except for the
 * mapping rules, which need no account.
 */
class UnixUsersTest {
    static final Duration LONG = Duration.ofSeconds(60);
    static final String U1 = "tandem-t1", U2 = "tandem-t2";
    @TempDir Path dir;
    Path shared;
    TandemServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) server.close();
        if (shared != null) {
            try (var files = Files.walk(shared)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static void ensureAccount(String name) throws Exception {
        if (UnixAccount.lookup(name).isPresent()) return;
        Process p = new ProcessBuilder("useradd", "--no-create-home", "--shell", "/bin/sh", name).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("useradd " + name + ": " + out).isZero();
    }

    static String lines(String log, String prefix) {
        return log.lines().filter(l -> l.startsWith(prefix)).collect(Collectors.joining("\n"));
    }

    @Test
    void eachJobRunsAsItsOwnersAccountAndSeesNothingOfTheDaemonOrOtherUsers() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "switching users needs a root daemon");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/useradd")), "needs useradd");
        ensureAccount(U1);
        ensureAccount(U2);
        UnixAccount a1 = UnixAccount.lookup(U1).orElseThrow(), a2 = UnixAccount.lookup(U2).orElseThrow();
        // a directory both accounts can reach (the @TempDir is root's alone), with a file only tandem-t2 may read
        shared = Files.createTempDirectory(Path.of("/tmp"), "tandem-unix-");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path secret = Files.writeString(shared.resolve("t2-secret"), "only for t2\n");
        UserPrincipal t2 = shared.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(U2);
        Files.setOwner(secret, t2);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));

        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        server = TandemServer.start(host.config(state));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        var r1 = api.post("/users", admin, TestApi.json(Map.of("name", "alice", "unix_user", U1)));
        assertThat(r1.status()).as(r1.body()).isEqualTo(201);
        assertThat(r1.json().get("unix_user").asText()).isEqualTo(U1);
        String alice = r1.json().get("token").asText();
        var r2 = api.post("/users", admin, TestApi.json(Map.of("name", U2))); // named like its account: mapped to it
        assertThat(r2.json().get("unix_user").asText()).as(r2.body()).isEqualTo(U2);
        String bob = r2.json().get("token").asText();

        long bobs = api.submit(bob, TestApi.json(Map.of("argv", List.of("/bin/sh", "-c", "id -u; cat " + secret), "workdir", shared.toString(),
                "signature", Map.of("model", "Probe"))));
        TestApi.await(LONG, "bob's job to succeed", () -> api.state(admin, bobs).equals("succeeded"));
        String bobLog = api.get("/jobs/" + bobs + "/logs", bob).json().get("data").asText();
        assertThat(bobLog).contains(a2.uid() + "\n").contains("only for t2");

        String probe = String.join("; ",
                "echo uid=$(id -u) gid=$(id -g)",
                "cat " + state.resolve(StateFiles.ADMIN_TOKEN) + " >/dev/null 2>&1; echo token=$?",
                "cat " + state.resolve("tandem.db") + " >/dev/null 2>&1; echo store=$?",
                "cat " + state.resolve("jobs/" + bobs + "/output.log") + " >/dev/null 2>&1; echo otherlog=$?",
                "cat " + secret + " >/dev/null 2>&1; echo otherfile=$?",
                "echo mine > " + shared.resolve("alice-was-here") + "; echo write=$?",
                "echo nice=$(cut -d' ' -f19 /proc/self/stat)",
                "env | sed 's/^/env:/'");
        long alices = api.submit(alice, TestApi.json(Map.of("argv", List.of("/bin/sh", "-c", probe), "workdir", shared.toString(),
                "env", Map.of("MY_SETTING", "42"), "signature", Map.of("model", "Probe"))));
        TestApi.await(LONG, "alice's job to succeed", () -> api.state(admin, alices).equals("succeeded"));
        String log = api.get("/jobs/" + alices + "/logs", alice).json().get("data").asText();
        assertThat(log).contains("uid=" + a1.uid() + " gid=" + a1.gid());
        assertThat(log).contains("token=1").contains("store=1").contains("otherlog=1").contains("otherfile=1").contains("write=0");
        // the scheduler's thread, which starts the job, runs at a raised priority; the job does not
        assertThat(schedulerThreadNice()).isEqualTo(-10);
        assertThat(log).contains("nice=0");
        assertThat(Files.getOwner(shared.resolve("alice-was-here")).getName()).isEqualTo(U1);
        Set<String> names = log.lines().filter(l -> l.startsWith("env:")).map(l -> l.substring(4).split("=", 2)[0]).collect(Collectors.toSet());
        assertThat(names).as(lines(log, "env:")).contains("HOME", "USER", "PATH", "MY_SETTING", "CUDA_VISIBLE_DEVICES", "TANDEM_JOB_ID", "TANDEM_RUN")
                .allMatch(n -> Set.of("HOME", "USER", "LOGNAME", "SHELL", "PATH", "LANG", "PWD", "SHLVL", "_", "MY_SETTING").contains(n)
                        || n.startsWith("CUDA_") || n.startsWith("TANDEM_"));
        assertThat(log).contains("env:USER=" + U1).contains("env:MY_SETTING=42");
        // the user's own view of the logs still works through the API; the other's does not
        assertThat(api.get("/jobs/" + bobs + "/logs", alice).status()).isEqualTo(404);
    }

    /**
     * A job whose owner's Unix account was removed after it was mapped cannot run on any attempt: it fails at its first
     * start, with why, instead of being tried as often as a crash would be.
     */
    @Test
    void aJobWhoseOwnersAccountIsGoneFailsAtItsFirstStart() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "switching users needs a root daemon");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/userdel")), "needs useradd and userdel");
        String gone = "tandem-t3";
        ensureAccount(gone);
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        server = TandemServer.start(host.config(dir.resolve("state")));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        var created = api.post("/users", admin, TestApi.json(Map.of("name", "carol", "unix_user", gone)));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        Process del = new ProcessBuilder("userdel", gone).redirectErrorStream(true).start();
        String out = new String(del.getInputStream().readAllBytes());
        assertThat(del.waitFor()).as("userdel " + gone + ": " + out).isZero();

        long id = api.submit(created.json().get("token").asText(), TestApi.json(Map.of("argv", List.of("/bin/true"), "workdir", dir.toString(),
                "signature", Map.of("model", "Probe"))));
        TestApi.await(LONG, "the job to fail", () -> api.state(admin, id).equals("failed"));
        com.fasterxml.jackson.databind.JsonNode job = api.job(admin, id);
        assertThat(job.get("attempts").asInt()).isEqualTo(1);
        assertThat(job.get("reason").asText()).contains("the Unix account " + gone + " of user carol no longer exists")
                .contains("not tried again, as every attempt would fail alike").contains("failed after 1 attempt(s)");
    }

    /** The nice value of this JVM's thread named "scheduler" (the daemon's loop), from /proc. */
    private static int schedulerThreadNice() throws Exception {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                if (!Files.readString(task.resolve("comm")).strip().equals("scheduler")) continue;
                String stat = Files.readString(task.resolve("stat"));
                return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
            }
        }
        throw new AssertionError("no scheduler thread");
    }

    /**
     * A job's output is handed over as a file of its owner's, written with the owner's rights: where the owner may not
     * write (the admin token, another user's file through a planted symbolic link) nothing is written and the job's
     * history says why.
     */
    @Test
    void eachRunsOutputIsCopiedWithTheOwnersRightsOnly() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "switching users needs a root daemon");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/useradd")), "needs useradd");
        ensureAccount(U1);
        ensureAccount(U2);
        shared = Files.createTempDirectory(Path.of("/tmp"), "tandem-out-");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path secret = Files.writeString(shared.resolve("t2-secret"), "only for t2\n");
        Files.setOwner(secret, shared.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(U2));
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Path state = dir.resolve("state");
        server = TandemServer.start(host.config(state));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        String token = api.post("/users", admin, TestApi.json(Map.of("name", "alice", "unix_user", U1))).json().get("token").asText();
        String adminToken = Files.readString(state.resolve(StateFiles.ADMIN_TOKEN));

        long ok = api.submit(token, TestApi.json(Map.of("argv", List.of("/bin/echo", "hello from alice"), "workdir", shared.toString(),
                "output", "alice-%j.log", "signature", Map.of("model", "Echo"))));
        Path out = shared.resolve("alice-" + ok + ".log");
        TestApi.await(LONG, "alice's output file", () -> {
            try {
                return Files.exists(out) && Files.readString(out).contains("hello from alice");
            } catch (java.io.IOException e) {
                return false;
            }
        });
        assertThat(Files.getOwner(out).getName()).isEqualTo(U1);
        assertThat(api.job(token, ok).get("output").asText()).isEqualTo(shared.resolve("alice-%j.log").toString());

        // into the state directory: refused when submitted (alice cannot enter it: aSubmissionTellsAUserNothingOf...); a link
        // planted in a directory she can enter passes that check, and the copy, made with her rights, fails
        var toToken = api.post("/jobs", token, TestApi.json(Map.of("argv", List.of("/bin/echo", "overwrite"), "workdir", shared.toString(),
                "output", state.resolve(StateFiles.ADMIN_TOKEN).toString(), "signature", Map.of("model", "Echo"))));
        assertThat(toToken.status()).isEqualTo(400);
        assertThat(toToken.json().get("field").asText()).isEqualTo("output");
        Path planted = shared.resolve("link-to-t2");
        java.nio.file.Files.createSymbolicLink(planted, secret);
        long toLink = api.submit(token, TestApi.json(Map.of("argv", List.of("/bin/echo", "overwrite"), "workdir", shared.toString(),
                "output", planted.toString(), "signature", Map.of("model", "Echo"))));
        TestApi.await(LONG, "job " + toLink + " to note why its output was not copied", () -> {
            for (var e : api.job(token, toLink).get("events")) if (e.get("reason").asText().startsWith("cannot copy its output to ")) return true;
            return false;
        });
        assertThat(Files.readString(state.resolve(StateFiles.ADMIN_TOKEN))).isEqualTo(adminToken);
        assertThat(Files.readString(secret)).isEqualTo("only for t2\n");
        String why = "";
        for (var e : api.job(token, toLink).get("events")) if (e.get("reason").asText().startsWith("cannot copy")) why = e.get("reason").asText();
        assertThat(why).isEqualTo("cannot copy its output to " + planted + ": " + planted + ": Permission denied");
    }

    /**
     * The working directory and the output's directory are checked with the owner's rights: a directory the owner may not
     * enter and one that does not exist get the same answer, so a submission tells a user nothing about what only the
     * root daemon can see. The daemon's own account's jobs are checked as the daemon sees them.
     */
    @Test
    void aSubmissionTellsAUserNothingOfDirectoriesItCannotEnter() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "switching users needs a root daemon");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/useradd")), "needs useradd");
        ensureAccount(U1);
        shared = Files.createTempDirectory(Path.of("/tmp"), "tandem-dirs-");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path hidden = Files.createDirectories(shared.resolve("root-only").resolve("inner"));
        Files.setPosixFilePermissions(hidden.getParent(), PosixFilePermissions.fromString("rwx------"));
        Path missing = shared.resolve("root-only").resolve("missing");
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        server = TandemServer.start(host.config(dir.resolve("state")));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        String alice = api.post("/users", admin, TestApi.json(Map.of("name", "alice", "unix_user", U1))).json().get("token").asText();

        for (Path wd : List.of(hidden, missing)) {
            var r = api.post("/jobs", alice, TestApi.json(Map.of("argv", List.of("/bin/true"), "workdir", wd.toString())));
            assertThat(r.status()).as(wd.toString()).isEqualTo(400);
            assertThat(r.json().get("field").asText()).isEqualTo("workdir");
            assertThat(r.json().get("error").asText()).isEqualTo("workdir: no directory that " + U1 + " can enter: " + wd);
        }
        var out = api.post("/jobs", alice, TestApi.json(Map.of("argv", List.of("/bin/true"), "workdir", shared.toString(),
                "output", hidden.resolve("out.log").toString())));
        assertThat(out.status()).isEqualTo(400);
        assertThat(out.json().get("field").asText()).isEqualTo("output");
        assertThat(out.json().get("error").asText()).isEqualTo("output: no directory that " + U1 + " can enter: " + hidden);
        assertThat(api.post("/jobs", alice, TestApi.json(Map.of("argv", List.of("/bin/true"), "workdir", shared.toString()))).status()).isEqualTo(201);
        // the daemon's own account sees what root sees
        assertThat(api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("/bin/true"), "workdir", hidden.toString()))).status()).isEqualTo(201);
        var gone = api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("/bin/true"), "workdir", missing.toString())));
        assertThat(gone.json().get("error").asText()).isEqualTo("workdir: no such directory on the server: " + missing);
    }

    @Test
    void rootOnlyWhenAllowedAndWithAWarning() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "a daemon that is not root maps every user to itself");
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        server = TandemServer.start(host.config(dir.resolve("state")));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        var refused = api.post("/users", admin, TestApi.json(Map.of("name", "eve", "unix_user", "root")));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.json().get("field").asText()).isEqualTo("unix_user");
        assertThat(refused.json().get("error").asText()).contains("'root' is root (uid 0)");
        assertThat(api.get("/users/eve", admin).status()).as("nothing stored").isEqualTo(404);
        var notABoolean = api.post("/users", admin, TestApi.json(Map.of("name", "eve", "unix_user", "root", "allow_root", "yes")));
        assertThat(notABoolean.status()).isEqualTo(400);
        assertThat(notABoolean.json().get("field").asText()).isEqualTo("allow_root");
        var ops = api.post("/users", admin, TestApi.json(Map.of("name", "ops", "unix_user", "root", "allow_root", true)));
        assertThat(ops.status()).as(ops.body()).isEqualTo(201);
        assertThat(ops.json().get("warning").asText()).startsWith("its jobs run as root (uid 0)");
        var plain = api.post("/users", admin, TestApi.json(Map.of("name", "svc", "unix_user", "nobody", "allow_root", true)));
        assertThat(plain.json().has("warning")).as(plain.body()).isFalse();
    }

    @Test
    void theMappingRules() {
        UnixAccount root = new UnixAccount("root", 0, 0, "/root", "/bin/sh"), svc = new UnixAccount("tandem", 998, 998, "/var/lib/tandem", "/bin/sh");
        java.util.function.Function<String, Optional<UnixAccount>> accounts = n -> n.equals("root") || n.equals("toor") ? Optional.of(new UnixAccount(n, 0, 0, "/root", "/bin/sh"))
                : Set.of("alice", "svc-ml").contains(n) ? Optional.of(new UnixAccount(n, 1000, 1000, "/home/" + n, "/bin/sh")) : Optional.empty();
        assertThat(UnixAccount.resolve(null, "alice", false, root, accounts).name()).isEqualTo("alice");
        assertThat(UnixAccount.resolve("svc-ml", "alice", false, root, accounts).name()).isEqualTo("svc-ml");
        assertThat(UnixAccount.resolve("root", "ops", true, root, accounts).name()).as("root only when asked and allowed").isEqualTo("root");
        // a user's token carries root's rights only when the admin allowed it, whatever the uid-0 account is called
        for (String uid0 : List.of("root", "toor")) {
            assertThatThrownBy(() -> UnixAccount.resolve(uid0, "carol", false, root, accounts))
                    .hasMessage("'" + uid0 + "' is root (uid 0): the user's jobs would run with every right on this machine; "
                            + "map it to an unprivileged account, or give allow_root (tandem users add --allow-root) if that is meant");
        }
        assertThatThrownBy(() -> UnixAccount.resolve(null, "root", false, root, accounts)).hasMessageStartingWith("'root' is root (uid 0)");
        assertThatThrownBy(() -> UnixAccount.resolve(null, "carol", false, root, accounts))
                .hasMessage("no Unix account named 'carol' on this machine; give unix_user (tandem users add --unix-user), the account whose rights its jobs get");
        assertThatThrownBy(() -> UnixAccount.resolve("nobody-here", "carol", false, root, accounts)).hasMessage("no Unix account 'nobody-here' on this machine");
        assertThatThrownBy(() -> UnixAccount.resolve("Bad Name", "carol", false, root, accounts)).hasMessage("'Bad Name' is not a Unix account name");
        // a daemon that is not root runs every job as itself
        assertThat(UnixAccount.resolve(null, "alice", false, svc, accounts)).isEqualTo(svc);
        assertThat(UnixAccount.resolve("tandem", "alice", false, svc, accounts)).isEqualTo(svc);
        assertThatThrownBy(() -> UnixAccount.resolve("alice", "alice", false, svc, accounts))
                .hasMessage("tandem serve runs as tandem, not as root, so every job runs as tandem; map users to tandem or run the daemon as root");
    }
}
