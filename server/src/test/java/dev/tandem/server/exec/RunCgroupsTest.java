package dev.tandem.server.exec;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class RunCgroupsTest {
    @TempDir Path dir;

    @Test
    void theCgroup2MountIsFoundInMountinfoWithItsEscapes() {
        List<String> hybrid = List.of(
                "25 30 0:22 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
                "26 25 0:23 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory",
                "27 25 0:24 / /sys/fs/cgroup/unified rw,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate");
        assertThat(RunCgroups.cgroup2Mount(hybrid)).contains(Path.of("/sys/fs/cgroup/unified"));
        assertThat(RunCgroups.cgroup2Mount(List.of("27 25 0:24 / /mnt/my\\040cgroups rw - cgroup2 none rw")))
                .contains(Path.of("/mnt/my cgroups"));
        assertThat(RunCgroups.cgroup2Mount(List.of(hybrid.get(1), "garbage"))).isEmpty();
    }

    @Test
    void theOwnCgroupIsTheV2Line() {
        assertThat(RunCgroups.ownCgroup(List.of("4:memory:/x", "0::/system.slice/tandem.service"))).contains("/system.slice/tandem.service");
        assertThat(RunCgroups.ownCgroup(List.of("4:memory:/x"))).isEmpty();
    }

    @Test
    void eachStateDirectoryHasItsOwnParent() {
        assertThat(RunCgroups.parentName(Path.of("/a/state"))).matches("tandem-[0-9a-f]{8}")
                .isEqualTo(RunCgroups.parentName(Path.of("/a/state")))
                .isNotEqualTo(RunCgroups.parentName(Path.of("/b/state")));
    }

    /** A process moved into a run's cgroup is listed there with the children it starts, and cgroup.kill ends them all. */
    @Test
    void aRunsCgroupHoldsItsProcessesAndIsKilledAsOne() throws Exception {
        RunCgroups cgroups;
        try {
            cgroups = RunCgroups.open(dir);
        } catch (RunCgroups.Unavailable e) {
            Assumptions.abort("no cgroups here: " + e.getMessage());
            return;
        }
        Path cg = cgroups.create(7, 1, dev.tandem.server.store.RunLimits.NONE).main();
        assertThat(cg.getParent()).isEqualTo(cgroups.parent());
        Process p = new ProcessBuilder("/bin/sh", "-c", "echo $$ > '" + cg.resolve("cgroup.procs") + "'; setsid sleep 60 & sleep 60").start();
        try {
            long deadline = System.currentTimeMillis() + 5000;
            while (RunCgroups.members(cg).size() < 2 && System.currentTimeMillis() < deadline) Thread.sleep(20);
            List<Long> members = RunCgroups.members(cg);
            assertThat(members).as("the shell's child and the escaped sleep").hasSizeGreaterThanOrEqualTo(2);
            assertThat(RunCgroups.remove(cg)).as("a cgroup with processes cannot be removed").isFalse();
            RunCgroups.kill(cg);
            deadline = System.currentTimeMillis() + 5000;
            while (!RunCgroups.members(cg).isEmpty() && System.currentTimeMillis() < deadline) Thread.sleep(20);
            assertThat(RunCgroups.members(cg)).isEmpty();
            for (long pid : members) assertThat(ProcessHandle.of(pid).filter(Processes::alive)).as("pid " + pid).isEmpty();
            assertThat(RunCgroups.remove(cg)).isTrue();
            assertThat(Files.exists(cg)).isFalse();
            assertThat(cgroups.create(7, 1, dev.tandem.server.store.RunLimits.NONE).main()).as("made again for the same attempt").isEqualTo(cg);
            RunCgroups.remove(cg);
        } finally {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            cgroups.close();
        }
        assertThat(Files.exists(cgroups.parent())).isFalse();
    }
}
