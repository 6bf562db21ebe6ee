package dev.tandem.server.exec.slurm;

import dev.tandem.server.exec.ExecException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

/** The parsers on output recorded from the CI's Slurm 22.05.8 (src/test/resources/slurm). */
class SlurmParsersTest {
    static String resource(String name) throws IOException {
        try (InputStream in = SlurmParsersTest.class.getResourceAsStream("/slurm/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void nodesWithTheirGpusAndStates() throws IOException {
        List<SlurmNode> nodes = SlurmNode.parseAll(resource("scontrol-show-node.txt"));
        assertThat(nodes).extracting(SlurmNode::name).containsExactly("node1", "node2");
        assertThat(nodes).extracting(SlurmNode::gpus).containsExactly(4, 4);
        assertThat(nodes).extracting(SlurmNode::shards).containsExactly(16, 16);
        assertThat(nodes).allMatch(n -> !n.unavailable());
        assertThat(nodes.getFirst().partitions()).containsExactly("gpu");

        List<SlurmNode> down = SlurmNode.parseAll(resource("scontrol-show-node-down.txt"));
        assertThat(down).extracting(SlurmNode::state).containsExactly("IDLE", "DOWN");
        assertThat(down.get(1).unavailable()).isTrue();
    }

    /**
     * Recorded while another user's jobs held all 16 CPUs of node1 and 63,500 of node2's 64,000 MB: neither can start
     * a job of tandem's (one CPU and, with the CI cluster's DefMemPerCPU, 1,000 MB) until Slurm frees some.
     */
    @Test
    void nodesWhoseCpusOrMemoryOtherJobsHold() throws IOException {
        List<SlurmNode> nodes = SlurmNode.parseAll(resource("scontrol-show-node-full.txt"));
        assertThat(nodes).extracting(SlurmNode::cpus).containsExactly(16, 16);
        assertThat(nodes).extracting(SlurmNode::cpusAllocated).containsExactly(16, 2);
        assertThat(nodes).extracting(SlurmNode::memoryAllocatedMb).containsExactly(16_000L, 63_500L);
        assertThat(nodes).allMatch(n -> !n.unavailable());
        long asked = SlurmConfig.parse(resource("scontrol-show-config.txt")).defaultJobMemoryMb();
        assertThat(asked).isEqualTo(1000);
        assertThat(nodes.get(0).full(asked)).isEqualTo("has no free CPU (16 of 16 allocated to Slurm jobs)");
        assertThat(nodes.get(1).full(asked)).isEqualTo("has 500 MB of memory free, less than a job asks for (1000 MB)");
        assertThat(nodes.get(1).full(0)).as("no default memory: memory is not looked at").isNull();
        assertThat(SlurmNode.parseAll(resource("scontrol-show-node.txt"))).allMatch(n -> n.full(asked) == null);
        // what other clusters may print, and a listing without the counts
        Function<String, Long> defaults = text -> SlurmConfig.parse(text).defaultJobMemoryMb();
        assertThat(defaults.apply("DefMemPerNode = UNLIMITED\nDefMemPerCPU = UNLIMITED\n")).isZero();
        assertThat(defaults.apply("DefMemPerNode = 2G\nDefMemPerCPU = 1000\n")).isEqualTo(2048);
        assertThat(defaults.apply("DefMemPerCPU = 512M\n")).isEqualTo(512);
        assertThat(SlurmNode.parse(Map.of("NodeName", "n", "CPUAlloc", "16")).full(1000)).isNull();
    }

    @Test
    void gresVariantsOfOtherClusters() {
        Function<String, Integer> gpus = g -> SlurmNode.parse(Map.of("NodeName", "n", "Gres", g)).gpus();
        assertThat(gpus.apply("gpu:a100:8(S:0-1),shard:64")).isEqualTo(8);
        assertThat(gpus.apply("shard:16,gpu:2")).isEqualTo(2);
        assertThat(gpus.apply("(null)")).isZero();
        Function<String, Integer> shards = g -> SlurmNode.parse(Map.of("NodeName", "n", "Gres", g)).shards();
        assertThat(shards.apply("gpu:a100:8(S:0-1),shard:64")).isEqualTo(64);
        assertThat(shards.apply("shard:a100:16,gpu:2")).isEqualTo(16);
        assertThat(shards.apply("gpu:4,mps:400")).isZero();
        assertThat(SlurmNode.parse(Map.of("NodeName", "n", "State", "IDLE+DRAIN")).unavailable()).isTrue();
        assertThat(SlurmNode.parse(Map.of("NodeName", "n", "State", "MIXED")).unavailable()).isFalse();
    }

    /**
     * The GPUs other jobs hold as gpu GRES, from {@code scontrol show job -d -o} recorded with two cancelled jobs, a
     * running job without GRES (as tandem's are), one holding node2's GPUs 0-1 and one on two nodes holding GPU 0 of
     * node1 and GPU 2 of node2.
     */
    @Test
    void gpusOtherJobsHoldAsGres() throws IOException {
        String gres = "another Slurm job (gpu GRES)";
        assertThat(GpusHeld.parse(resource("scontrol-show-job-details.txt"), "mine00ab"))
                .isEqualTo(Map.of("node1", Map.of(0, gres), "node2", Map.of(0, gres, 1, gres, 2, gres)));
        assertThat(GpusHeld.indices("gpu:a100:3(IDX:0-1,3)")).containsExactly(0, 1, 3);
        assertThat(GpusHeld.indices("shard:2(2/4,0/4),gpu:1(IDX:1)")).containsExactly(1);
        assertThat(GpusHeld.indices("gpu:0(IDX:N/A)")).isEmpty();
        assertThat(GpusHeld.indices("")).isEmpty();
        assertThat(GpusHeld.hostnames("node[1-2,4]")).containsExactly("node1", "node2", "node4");
        assertThat(GpusHeld.hostnames("a1,gpu[08-10]x,b")).containsExactly("a1", "gpu08x", "gpu09x", "gpu10x", "b");
    }

    /**
     * Recorded with four jobs commented as tandem's and one holding GPU 0 of node2 as gpu GRES: another daemon's running
     * run on GPU 0 of node1 and its run PENDING for GPUs 1-2 there (no NodeList yet: the node it asked for counts),
     * this daemon's own run on GPU 3, and a run of an earlier version, whose comment names no GPU.
     */
    @Test
    void gpusAnotherTandemDaemonsRunsHold() throws IOException {
        String text = resource("scontrol-show-job-tandem-daemons.txt");
        assertThat(GpusHeld.parse(text, "mine00ab")).isEqualTo(Map.of(
                "node1", Map.of(0, "Slurm job 51 of another tandem daemon (otherone)", 1, "Slurm job 52 of another tandem daemon (otherone)",
                        2, "Slurm job 52 of another tandem daemon (otherone)"),
                "node2", Map.of(0, "another Slurm job (gpu GRES)")));
        assertThat(GpusHeld.parse(text, "otherone").get("node1")).as("the other daemon sees this one's run").isEqualTo(
                Map.of(3, "Slurm job 53 of another tandem daemon (mine00ab)"));
        // a start on such a GPU, decided before the daemon's last look saw it taken, is refused at submission
        Map<String, Map<Integer, String>> held = GpusHeld.parse(text, "mine00ab");
        assertThat(SlurmExecutor.taken(held, "node1", List.of(new SlurmExecutor.SlurmGpu("node1", 3), new SlurmExecutor.SlurmGpu("node1", 2))))
                .isEqualTo("GPU 2 of Slurm node node1 is held by Slurm job 52 of another tandem daemon (otherone)");
        assertThat(SlurmExecutor.taken(held, "node1", List.of(new SlurmExecutor.SlurmGpu("node1", 3)))).isNull();
        assertThat(SlurmExecutor.taken(held, "node2", List.of(new SlurmExecutor.SlurmGpu("node2", 1)))).isNull();

        TandemComment c = new TandemComment(7, 2, "mine00ab", List.of(0, 3));
        assertThat(c.text()).isEqualTo("tandem:7:2:mine00ab:0,3");
        assertThat(TandemComment.parse(c.text())).contains(c);
        assertThat(TandemComment.parse("tandem:8:1:otherone")).contains(new TandemComment(8, 1, "otherone", List.of()));
        assertThat(TandemComment.parse("tandem:7:2:mine00ab:")).hasValueSatisfying(t -> assertThat(t.names(7, 2, "mine00ab")).isTrue());
        for (String other : new String[] {"tandem:1:1", "tandem:x:1:a:0", "tandem:1:1:a:0,x", "tandem:1:1::0", "tandem:1:1:a:0:9", "nightly build", ""}) {
            assertThat(TandemComment.parse(other)).as(other).isEmpty();
        }
        assertThat(TandemComment.parse(null)).isEmpty();
    }

    @Test
    void shardAccountingNeedsShardsSpreadEvenlyOverTheGpus() {
        assertThat(SlurmExecutor.shardsPerGpu(new SlurmNode("n", 4, 16, "IDLE", List.of(), 16, 0, 64_000, 0))).isEqualTo(4);
        assertThatThrownBy(() -> SlurmExecutor.shardsPerGpu(new SlurmNode("n", 4, 0, "IDLE", List.of(), 16, 0, 64_000, 0)))
                .isInstanceOf(ExecException.class).hasMessageContaining("node n has 4 gpu and 0 shard");
        assertThatThrownBy(() -> SlurmExecutor.shardsPerGpu(new SlurmNode("n", 4, 10, "IDLE", List.of(), 16, 0, 64_000, 0))).isInstanceOf(ExecException.class);
        assertThatThrownBy(() -> new SlurmSettings(null, List.of(), 0, 1, null, null, "mps"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--slurm-gres must be none or shard");
        assertThatThrownBy(() -> new SlurmSettings(null, List.of(), 0, 1, "--help", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--slurm-nvidia-smi");
        assertThatThrownBy(() -> SlurmSettings.defaults().withPendingLimitMs(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--slurm-pending-limit must be positive");
    }

    @Test
    void jobsStatesExitCodesAndComments() throws IOException {
        Map<Long, SlurmJob> jobs = SlurmJob.parseAll(resource("scontrol-show-job.txt")).stream()
                .collect(Collectors.toMap(SlurmJob::id, j -> j));
        assertThat(jobs).hasSize(5);
        SlurmJob cancelled = jobs.get(1L), failed = jobs.get(2L), nodeFail = jobs.get(3L), ok = jobs.get(4L), running = jobs.get(5L);
        assertThat(cancelled.name()).isEqualTo("tandem-1-1");
        assertThat(cancelled.comment()).isEqualTo("tandem:1:1");
        assertThat(cancelled.state()).isEqualTo("CANCELLED");
        assertThat(cancelled.tandemExitCode()).isEqualTo(143);
        assertThat(failed.state()).isEqualTo("FAILED");
        assertThat(failed.exitCode()).isEqualTo(3);
        assertThat(failed.tandemExitCode()).isEqualTo(3);
        assertThat(nodeFail.state()).isEqualTo("NODE_FAIL");
        assertThat(nodeFail.reason()).isEqualTo("NodeDown");
        assertThat(nodeFail.tandemExitCode()).isNull();
        assertThat(ok.tandemExitCode()).isZero();
        assertThat(running.finished()).isFalse();
        assertThat(running.nodeList()).isEqualTo("node1");
        assertThat(List.of(cancelled, failed, nodeFail, ok)).allMatch(SlurmJob::finished);
    }

    @Test
    void statesAndExitCodesMapToWhatTheDaemonExpects() {
        Function<String, Integer> code = s -> {
            String[] p = s.split(" ");
            return SlurmJob.parse(Map.of("JobId", "9", "JobState", p[0], "ExitCode", p[1])).tandemExitCode();
        };
        assertThat(code.apply("TIMEOUT 0:15")).isEqualTo(143);
        assertThat(code.apply("FAILED 0:9")).isEqualTo(137);
        assertThat(code.apply("OUT_OF_MEMORY 0:125")).isEqualTo(137);
        assertThat(code.apply("PREEMPTED 0:15")).isNull();
        assertThat(code.apply("BOOT_FAIL 0:0")).isNull();
        assertThat(SlurmJob.parse(Map.of("JobId", "9", "JobState", "COMPLETING")).finished()).isFalse();
    }

    @Test
    void aJobsMemoryIsEnforcedOnlyWhereSlurmIsSetUpToKillJobsOverIt() throws IOException {
        // the CI cluster without and with JobAcctGatherParams=OverMemoryKill (scontrol show config, Slurm 22.05.8)
        SlurmConfig plain = SlurmConfig.parse(resource("scontrol-show-config.txt"));
        assertThat(plain.get("TaskPlugin")).isEqualTo("task/none");
        assertThat(plain.get("SelectTypeParameters")).isEqualTo("CR_CORE_MEMORY");
        assertThat(plain.memoryNotEnforced()).get(STRING).contains("does not enforce a job's memory")
                .contains("JobAcctGatherParams=(null), TaskPlugin=task/none");
        assertThat(SlurmConfig.parse(resource("scontrol-show-config-overmemorykill.txt")).memoryNotEnforced()).isEmpty();
        // a cluster confining jobs to cgroups: not recorded here (no cgroups in this sandbox), so the recorded text with the two
        // settings changed as Slurm lists them
        String cgroups = resource("scontrol-show-config.txt").replace("TaskPlugin              = task/none", "TaskPlugin              = task/cgroup,task/affinity");
        assertThat(SlurmConfig.parse(cgroups).memoryNotEnforced()).isPresent(); // ConstrainRAMSpace defaults to no
        assertThat(SlurmConfig.parse(cgroups + "ConstrainRAMSpace       = yes\n").memoryNotEnforced()).isEmpty();
        assertThat(SlurmConfig.parse(cgroups + "ConstrainRAMSpace       = no\n").memoryNotEnforced()).isPresent();
    }

    @Test
    void aJobSlurmKilledForItsMemoryEndsFailedBySignal9() throws IOException {
        // JobAcctGatherParams=OverMemoryKill killed it (its output says so: LogScannerTest); without cgroups it is not OUT_OF_MEMORY
        SlurmJob j = SlurmJob.parseAll(resource("scontrol-show-job-over-memory.txt")).getFirst();
        assertThat(j.state()).isEqualTo("FAILED");
        assertThat(j.tandemExitCode()).isEqualTo(137);
    }

    @Test
    void valuesWithSpacesRunToTheNextKey() {
        Map<String, String> f = SlurmText.fields("NodeName=node1 OS=Linux 6.18.44 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=64000 CPUs/Task=1 AllocNode:Sid=localhost:26");
        assertThat(f).containsEntry("OS", "Linux 6.18.44 #1 SMP PREEMPT_DYNAMIC @0").containsEntry("RealMemory", "64000")
                .containsEntry("CPUs/Task", "1").containsEntry("AllocNode:Sid", "localhost:26");
    }
}
