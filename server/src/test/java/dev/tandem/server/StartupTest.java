package dev.tandem.server;

import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.testing.FakeGpuHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A daemon that cannot start says why in one line and what to do, before it creates the store or the admin token;
 * the state directory is the daemon user's alone.
 */
class StartupTest {
    @TempDir Path dir;

    static void assertNothingCreated(Path state) {
        assertThat(state.resolve("tandem.db")).doesNotExist();
        assertThat(state.resolve(StateFiles.ADMIN_TOKEN)).doesNotExist();
        assertThat(state.resolve(StateFiles.SERVER_URL)).doesNotExist();
    }

    static String mode(Path p) throws Exception { return PosixFilePermissions.toString(Files.getPosixFilePermissions(p)); }

    @Test
    void anApiReachableFromOtherMachinesIsSaidToSpeakPlainHttp() {
        assertThat(TandemServer.plainHttpBeyondThisMachine("127.0.0.1")).isEmpty();
        assertThat(TandemServer.plainHttpBeyondThisMachine("::1")).isEmpty();
        assertThat(TandemServer.plainHttpBeyondThisMachine("localhost")).isEmpty();
        assertThat(TandemServer.plainHttpBeyondThisMachine("0.0.0.0")).hasValueSatisfying(w -> assertThat(w)
                .startsWith("the API listens on 0.0.0.0 over plain HTTP").contains("TLS proxy").contains("SSH tunnel"));
        assertThat(TandemServer.plainHttpBeyondThisMachine("192.0.2.7")).isPresent();
    }

    @Test
    void aStateDirectoryOthersCanWriteIsRefused() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = Files.createDirectory(dir.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> TandemServer.start(host.config(state))).isInstanceOf(StartupException.class)
                .hasMessage("state directory " + state + " is writable by others (mode rwxrwxrwx), who could rewrite what jobs run; "
                        + "check what is in it, then run: chmod 700 " + state);
        assertNothingCreated(state);
        assertThat(state).isEmptyDirectory();
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertThatThrownBy(() -> TandemServer.start(host.config(state))).hasMessageContaining("is writable by others (mode rwxrwxr-x)");
    }

    @Test
    void aReadableStateDirectoryAndWhatIsInItBecomeOwnerOnly() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = Files.createDirectory(dir.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path job = Files.createDirectories(state.resolve("jobs/1"));
        Files.setPosixFilePermissions(job, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path log = Files.writeString(job.resolve("output.log"), "secret output\n");
        Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-r--r--"));
        try (TandemServer server = TandemServer.start(host.config(state))) {
            assertThat(mode(state)).isEqualTo("rwx------");
            assertThat(mode(job)).isEqualTo("rwx------");
            assertThat(mode(log)).isEqualTo("rw-------");
            assertThat(mode(state.resolve("tandem.db"))).isEqualTo("rw-------");
            assertThat(mode(state.resolve("tandem.db-wal"))).isEqualTo("rw-------");
            assertThat(mode(state.resolve(StateFiles.ADMIN_TOKEN))).isEqualTo("rw-------");
            assertThat(mode(state.resolve(StateFiles.LOCK))).isEqualTo("rw-------");
            assertThat(mode(state.resolve("bin"))).isEqualTo("rwx------");
            assertThat(mode(state.resolve("bin/tandem-run.sh"))).isEqualTo("rwx------");
        }
        // a new state directory is created owner-only whatever the umask
        Path fresh = dir.resolve("fresh/state");
        try (TandemServer server = TandemServer.start(host.config(fresh))) {
            assertThat(mode(fresh)).isEqualTo("rwx------");
        }
    }

    @Test
    void aPortInUseFailsBeforeAnythingIsCreated() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = dir.resolve("state");
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            ServerConfig c = host.config(state);
            ServerConfig onTaken = new ServerConfig(state, c.host(), taken.getLocalPort(), null, c.policy(), c.sharing(), c.mpsThreadPercentage(),
                    c.scheduler(), c.stopGraceMs(), c.maxBodyBytes(), true, c.tools());
            assertThatThrownBy(() -> TandemServer.start(onTaken)).isInstanceOf(StartupException.class)
                    .hasMessageStartingWith("cannot listen on 127.0.0.1:" + taken.getLocalPort() + " (")
                    .hasMessageEndingWith("another tandem serve or program may use it: stop it, or give --port (0 = any free port)");
        }
        assertNothingCreated(state);
    }

    @Test
    void noNvidiaSmiFailsBeforeAnythingIsCreatedAndPointsToTheSimulator() {
        Path state = dir.resolve("state");
        ServerConfig c = new ServerConfig(state, "127.0.0.1", 0, null, "tandem", Sharing.TIME_SLICING, 50,
                new dev.tandem.server.sched.SchedulerConfig(100, 500, 1000, 1000, 3, 512), 2000, 64 * 1024, true, new ToolPath(dir.toString()));
        assertThatThrownBy(() -> TandemServer.start(c)).isInstanceOf(StartupException.class)
                .hasMessageStartingWith("no GPUs found: nvidia-smi is not on PATH (" + dir + ")")
                .hasMessageContaining("nvidia-smi --query-gpu=index,uuid,name,memory.total")
                .hasMessageEndingWith("to try tandem without GPUs, add --executor simulated");
        assertNothingCreated(state);
    }

    @Test
    void aDamagedStoreIsNamedAndLeftAsItWas() throws Exception {
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        Path state = Files.createDirectory(dir.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        byte[] garbage = "this is not a SQLite database, but a user's file that must survive\n".repeat(20).getBytes();
        Files.write(state.resolve("tandem.db"), garbage);
        assertThatThrownBy(() -> TandemServer.start(host.config(state))).isInstanceOf(StartupException.class)
                .hasMessageStartingWith("cannot open the store sqlite:" + state.resolve("tandem.db") + ": ")
                .hasMessageContaining("not a database")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(Files.readAllBytes(state.resolve("tandem.db"))).isEqualTo(garbage);
        assertThat(state.resolve(StateFiles.ADMIN_TOKEN)).doesNotExist();
    }

    @Test
    void theStorePasswordComesFromAFileOrTheEnvironmentNotTheCommandLine() throws Exception {
        Path file = Files.writeString(dir.resolve("pw"), "s3cr:t @/+ x\nignored second line\n");
        String url = StorePassword.apply("postgresql://tandem@db:5432/tandem", file, null);
        assertThat(url).isEqualTo("postgresql://tandem:s3cr%3At%20%40%2F%2B%20x@db:5432/tandem");
        assertThat(dev.tandem.server.store.Database.parse(url, dir).description()).isEqualTo("postgresql://tandem@db:5432/tandem");
        assertThat(StorePassword.apply("postgresql://tandem@db/tandem", null, "fromenv")).isEqualTo("postgresql://tandem:fromenv@db/tandem");
        assertThat(StorePassword.apply(null, null, "fromenv")).as("the variable does not concern SQLite").isNull();
        assertThat(StorePassword.apply("postgresql://tandem@db/tandem", null, null)).isEqualTo("postgresql://tandem@db/tandem");
        assertThatThrownBy(() -> StorePassword.apply(null, file, null)).hasMessage("--store-password-file " + file + " is for a postgresql:// --store");
        assertThatThrownBy(() -> StorePassword.apply("postgresql://tandem:inline@db/tandem", file, null))
                .hasMessage("--store holds a password and --store-password-file " + file + " gives one too; keep only --store-password-file " + file);
        assertThatThrownBy(() -> StorePassword.apply("postgresql://db/tandem", null, "x")).hasMessageStartingWith("--store: name the user");
        assertThatThrownBy(() -> StorePassword.apply("postgresql://tandem@db/tandem", dir.resolve("missing"), null))
                .hasMessage("--store-password-file " + dir.resolve("missing") + ": no such file");
        Files.writeString(file, "\nsecond\n");
        assertThatThrownBy(() -> StorePassword.apply("postgresql://tandem@db/tandem", file, null)).hasMessageEndingWith("the first line is empty");
    }

    /**
     * Daemons with different state directories on one machine: the first (its own process) holds GPU 0; a second
     * that sees GPUs 0 and 1 schedules GPU 1 only, says who has GPU 0, and takes GPU 0 once the first stops; a third
     * that sees only GPU 0 cannot start while the first holds it.
     */
    @Test
    void twoDaemonsNeverShareAGpu() throws Exception {
        FakeGpuHost one = FakeGpuHost.install(dir.resolve("one"), "h100x1"), two = FakeGpuHost.install(dir.resolve("two"), "h100x2");
        var first = dev.tandem.server.testing.DaemonProcess.start(one, dir.resolve("state1"), dir.resolve("first.log"));
        try (TandemServer second = TandemServer.start(two.config(dir.resolve("state2")))) {
            String holder = "pid " + first.pid() + ", state dir " + dir.resolve("state1");
            var api = new dev.tandem.server.testing.TestApi(second.url());
            String admin = Files.readString(second.adminTokenFile()).strip();
            var gpus = api.get("/gpus", admin).json().get("gpus");
            assertThat(gpus).hasSize(2);
            assertThat(gpus.get(0).get("unavailable").asText())
                    .isEqualTo("GPU 0 (GPU-5b2e8f1a-3c4d-4e6f-8a9b-0c1d2e3f4a5b) is used by another tandem serve (" + holder + ")");
            assertThat(gpus.get(1).get("unavailable").isNull()).isTrue();
            long both = api.submit(admin, dev.tandem.server.testing.TestApi.json(java.util.Map.of("argv", java.util.List.of("sleep", "30"),
                    "workdir", dir.toString(), "gpus", 2)));
            Thread.sleep(1500);
            assertThat(api.state(admin, both)).as("GPU 0 is the other daemon's").isEqualTo("pending");
            assertThat(api.job(admin, both).get("reason").asText()).contains("1 of them with work that is not this daemon's");
            assertThatThrownBy(() -> TandemServer.start(one.config(dir.resolve("state3")))).isInstanceOf(StartupException.class)
                    .hasMessage("GPU 0 (GPU-5b2e8f1a-3c4d-4e6f-8a9b-0c1d2e3f4a5b) is used by another tandem serve (" + holder
                            + "): every GPU of this machine is taken; stop that daemon, or use its state directory");
            assertNothingCreated(dir.resolve("state3"));
            first.close(); // its lock goes with it; the second daemon takes GPU 0 at its next try
            dev.tandem.server.testing.TestApi.await(java.time.Duration.ofSeconds(30), "the 2-GPU job to start on GPUs 0 and 1",
                    () -> api.job(admin, both).get("gpu_ids").toString().equals("[0,1]"));
            dev.tandem.server.testing.TestApi.await(java.time.Duration.ofSeconds(10), "GET /gpus to show GPU 0 as this daemon's",
                    () -> api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").isNull());
        } finally {
            first.close();
        }
        // the first daemon is gone, and with it its lock
        try (TandemServer again = TandemServer.start(one.config(dir.resolve("state3")))) {
            assertThat(again.url()).isNotBlank();
        }
    }
}
