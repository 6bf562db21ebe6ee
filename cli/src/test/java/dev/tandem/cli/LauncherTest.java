package dev.tandem.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code tandem} launcher at the repository's root, run from a copy in a scratch directory with a stand-in JDK and
 * Maven (the real build takes half a minute and needs the repository): what it decides to do, not what Maven does.
 */
class LauncherTest {
    @TempDir Path root;

    @Test
    void twoCommandsStartedTogetherBuildOnceAndBothRunTheJar() throws Exception {
        // serve, then submit at once, after a change to the sources: both find the jar stale; the second must wait for
        // the first one's build instead of running Maven into the same target directory beside it
        Path launcher = root.resolve("tandem");
        Files.copy(Path.of("..", "tandem"), launcher, StandardCopyOption.COPY_ATTRIBUTES);
        Path jdk = root.resolve("jdk");
        Files.createDirectories(jdk.resolve("bin"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.1\"\n");
        script(jdk.resolve("bin/java"), "echo \"java $*\"");
        Path bin = root.resolve("bin");
        Files.createDirectories(bin);
        Path log = root.resolve("builds.log");
        script(bin.resolve("mvn"), "echo \"start $$\" >> " + log + "; sleep 1; mkdir -p cli/target; : > cli/target/tandem.jar; echo \"end $$\" >> " + log);
        script(bin.resolve("npm"), "exit 0");

        List<Process> runs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            ProcessBuilder pb = new ProcessBuilder("bash", launcher.toString(), "--version").redirectErrorStream(true);
            pb.environment().put("JAVA_HOME", jdk.toString());
            pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
            pb.environment().put("TANDEM_NO_AOT", "1");
            runs.add(pb.start());
        }
        for (Process p : runs) {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.exitValue()).as(out).isZero();
            assertThat(out).contains("java -jar " + root.resolve("cli/target/tandem.jar") + " --version");
        }
        List<String> builds = Files.readAllLines(log);
        assertThat(builds).hasSize(2);
        assertThat(builds.get(0)).startsWith("start ");
        assertThat(builds.get(1)).isEqualTo("end " + builds.get(0).substring("start ".length()));
    }

    /** The daemon runs with a short GC pause goal (its rounds fall between collections), every other command without. */
    @Test
    void theDaemonRunsWithAShortGcPauseGoal() throws Exception {
        Path launcher = root.resolve("tandem");
        Files.copy(Path.of("..", "tandem"), launcher, StandardCopyOption.COPY_ATTRIBUTES);
        Path jdk = root.resolve("jdk");
        Files.createDirectories(jdk.resolve("bin"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.1\"\n");
        script(jdk.resolve("bin/java"), "echo \"java $*\"");
        Path jar = root.resolve("cli/target/tandem.jar");
        Files.createDirectories(jar.getParent());
        Files.writeString(jar, ""); // newer than every source: no build
        for (var c : java.util.Map.of("serve", "java -XX:MaxGCPauseMillis=10 -jar " + jar + " serve --port 1",
                "simulate", "java -jar " + jar + " simulate --port 1").entrySet()) {
            ProcessBuilder pb = new ProcessBuilder("bash", launcher.toString(), c.getKey(), "--port", "1").redirectErrorStream(true);
            pb.environment().put("JAVA_HOME", jdk.toString());
            pb.environment().put("TANDEM_NO_AOT", "1");
            Process p = pb.start();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            assertThat(out).as(c.getKey()).isEqualTo(c.getValue());
        }
    }

    private static void script(Path file, String body) throws IOException {
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
