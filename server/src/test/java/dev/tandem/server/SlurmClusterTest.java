package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.slurm.SlurmSettings;
import dev.tandem.server.sched.SchedulerConfig;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * tandem serve with {@code --executor slurm} against a real Slurm (the CI's .ci/slurm-up.sh: Slurm 22.05, nodes
 * node1 and node2 with fake gpu GRES). Runs only where SLURM_CONF names the cluster's slurm.conf. Jobs are bash CPU
 * programs standing in for training; each test uses its own state directory, so its tandem job ids and Slurm
 * comments do not collide with the other tests'.
 */
@EnabledIfEnvironmentVariable(named = "SLURM_CONF", matches = ".+")
class SlurmClusterTest {
    static final Duration LONG = Duration.ofSeconds(60);
    static final Map<String, Object> RESNET = Map.of("model", "ResNet18", "dataset", "CIFAR-10", "batch_size", 64, "amp", false);

    @TempDir Path dir;
    FakeGpuHost host;
    TandemServer server;
    TestApi api;
    String admin;
    /** The profiling window, when a test needs a longer one than FakeGpuHost's 1 s (0: that one). */
    long profileMs;

    /** One GPU of node1 unless said otherwise, so that the policy must pair. */
    void start(String policy, SlurmSettings slurm, boolean stopJobsOnShutdown) throws Exception {
        if (host == null) host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        ServerConfig c = host.config(dir.resolve("state"), policy, Sharing.TIME_SLICING);
        SchedulerConfig s = c.scheduler();
        if (profileMs > 0) s = new SchedulerConfig(s.tickMs(), s.roundMs(), profileMs, s.observeMs(), s.maxAttempts(), s.memoryMarginMiB()).withKnownProfiles("none");
        server = TandemServer.start(new ServerConfig(c.stateDir(), c.host(), 0, null, c.policy(), c.sharing(), c.mpsThreadPercentage(), s,
                c.stopGraceMs(), c.maxBodyBytes(), stopJobsOnShutdown, c.tools(), "slurm", slurm));
        api = new TestApi(server.url());
        admin = Files.readString(server.adminTokenFile()).strip();
    }

    void start() throws Exception { start("tandem", new SlurmSettings(null, List.of("node1"), 1, 81_920), true); }

    @AfterEach
    void stop() {
        if (server != null) server.close();
        scontrol("update", "nodename=node1", "state=resume"); // after the node-failure test; harmless otherwise
    }

    long submit(List<String> argv, Map<String, Object> signature) {
        return api.submit(admin, TestApi.json(Map.of("argv", argv, "workdir", dir.toString(), "signature", signature, "memory_mib", 4096)));
    }

    List<String> states(long id) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : api.job(admin, id).get("events")) out.add(e.get("to").asText());
        return out;
    }

    static String scontrol(String... args) {
        try {
            List<String> cmd = new ArrayList<>(List.of("scontrol"));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return out;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** Slurm's own record of the job tandem submitted for this run, by its comment. */
    String slurmJob(long jobId, int attempt) {
        return slurmJob(dir.resolve("state"), jobId, attempt);
    }

    /** The same for the daemon with this state directory. */
    static String slurmJob(Path state, long jobId, int attempt) {
        String prefix = "Comment=tandem:" + jobId + ":" + attempt + ":" + read(state.resolve("slurm-instance")) + ":";
        return scontrol("show", "job", "-o").lines().filter(l -> l.contains(prefix)).reduce((a, b) -> b).orElse("");
    }

    static String read(Path p) {
        try {
            return Files.readString(p).strip();
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    @Test
    void aJobRunsUnderSlurmWithProgressAndItsArgvIntact() throws Exception {
        start();
        Path out = dir.resolve("args.bin");
        List<String> argv = new ArrayList<>(List.of("/bin/bash", "-c",
                "printf '%s\\0' \"$@\" > " + out + "; for i in 1 2 3; do echo tandem:progress iter=$i; sleep 0.2; done; echo host=$SLURM_JOB_ID cuda=$CUDA_VISIBLE_DEVICES", "job"));
        List<String> nasty = List.of("it's \"quoted\"", "two  spaces", "$(touch pwned)", "a; touch pwned2", "line1\nline2", "", "`id`");
        argv.addAll(nasty);
        long id = submit(argv, Map.of("model", "Nasty"));
        TestApi.await(LONG, "job " + id + " to succeed", () -> api.state(admin, id).equals("succeeded"));

        assertThat(Files.readString(out)).isEqualTo(String.join("\0", nasty) + "\0");
        assertThat(dir.resolve("pwned")).doesNotExist();
        assertThat(dir.resolve("pwned2")).doesNotExist();
        String log = api.get("/jobs/" + id + "/logs", admin).json().get("data").asText();
        assertThat(log).contains("Slurm node node1").containsPattern("host=\\d+ cuda=0");
        assertThat(api.job(admin, id).get("progress_iter").asLong()).isEqualTo(3);
        String slurm = slurmJob(id, 1);
        assertThat(slurm).contains("JobName=tandem-" + id + "-1").contains("JobState=COMPLETED").contains("NodeList=node1");
    }

    /**
     * Profiles RESNET with a local daemon on the (fake) GPU host and the same state directory (profiles are per
     * workload, not per machine), so that a Slurm test can pair at once; profiling on Slurm has its own test.
     */
    void profileLocally() throws Exception {
        host = FakeGpuHost.install(dir.resolve("host"), "h100x1");
        server = TandemServer.start(host.config(dir.resolve("state")));
        api = new TestApi(server.url());
        admin = Files.readString(server.adminTokenFile()).strip();
        long p = submit(List.of(host.trainScript(), "20", "0.1"), RESNET);
        TestApi.await(LONG, "the local profiling run", () -> api.state(admin, p).equals("succeeded"));
        server.close();
    }

    @Test
    void twoJobsArePairedOnOneGpuOfANode() throws Exception {
        profileLocally();
        start();
        long a = submit(List.of(host.trainScript(), "80", "0.1"), RESNET);
        long b = submit(List.of(host.trainScript(), "40", "0.1"), RESNET);
        TestApi.await(LONG, "job " + b + " to pair with " + a, () -> api.state(admin, b).equals("paired"));
        api.awaitPartner(admin, b, a, LONG);
        assertThat(api.job(admin, b).get("reason").asText()).startsWith("paired " + b + " with " + a);
        // both really run in Slurm at once, on node1, bound to the same GPU
        TestApi.await(LONG, "both to run in Slurm", 
                () -> slurmJob(a, 1).contains("JobState=RUNNING") && slurmJob(b, 1).contains("JobState=RUNNING"));
        assertThat(slurmJob(a, 1)).contains("NodeList=node1");
        assertThat(slurmJob(b, 1)).contains("NodeList=node1");
        TestApi.await(LONG, "both to succeed", () -> api.state(admin, a).equals("succeeded") && api.state(admin, b).equals("succeeded"));
        String logB = api.get("/jobs/" + b + "/logs", admin).json().get("data").asText();
        assertThat(logB).contains("on GPU(s) 0 (Slurm node node1, GPU 0)");
    }

    long submitGang(int gpus, List<String> argv, Map<String, Object> signature) {
        return api.submit(admin, TestApi.json(Map.of("argv", argv, "workdir", dir.toString(), "signature", signature, "memory_mib", 4096, "gpus", gpus)));
    }

    List<Integer> gpuIds(long id) {
        List<Integer> out = new ArrayList<>();
        api.job(admin, id).get("gpu_ids").forEach(g -> out.add(g.asInt()));
        return out;
    }

    /**
     * Two nodes of four GPUs: with three GPUs of node1 taken, a 4-GPU job must go to node2, not to node1's last GPU
     * and three of node2's (a daemon that saw one 8-GPU machine did that, and Slurm could not start it).
     */
    @Test
    void aGangLandsOnOneNodeNeverAcrossTwo() throws Exception {
        start("fifo", new SlurmSettings(null, List.of("node1", "node2"), 4, 81_920), true);
        assertThat(api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("true"), "gpus", 5))).body())
                .contains("gpus: a job runs on one node, and the largest node has 4 GPU(s); got 5");
        long a = submitGang(2, List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "HoldsTwo"));
        long b = submitGang(1, List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "HoldsOne"));
        TestApi.await(LONG, "jobs " + a + " and " + b + " to run in Slurm",
                () -> slurmJob(a, 1).contains("JobState=RUNNING") && slurmJob(b, 1).contains("JobState=RUNNING"));
        assertThat(slurmJob(a, 1)).contains("NodeList=node1");
        assertThat(slurmJob(b, 1)).contains("NodeList=node1");

        long c = submitGang(4, List.of("/bin/bash", "-c", "echo cuda=$CUDA_VISIBLE_DEVICES"), Map.of("model", "Wide"));
        TestApi.await(LONG, "the 4-GPU job to succeed", () -> api.state(admin, c).equals("succeeded"));
        assertThat(api.job(admin, c).get("attempts").asInt()).isEqualTo(1);
        assertThat(gpuIds(c)).containsExactly(4, 5, 6, 7);
        assertThat(slurmJob(c, 1)).contains("NodeList=node2").contains("JobState=COMPLETED");
        assertThat(api.get("/jobs/" + c + "/logs", admin).json().get("data").asText())
                .contains("(Slurm node node2, GPU 0,1,2,3)").contains("cuda=0,1,2,3");
        JsonNode gpus = api.get("/gpus", admin).json().get("gpus");
        assertThat(gpus.get(0).get("node").asText()).isEqualTo("node1");
        assertThat(gpus.get(7).get("node").asText()).isEqualTo("node2");
        api.post("/jobs/" + a + "/cancel", admin, "");
        api.post("/jobs/" + b + "/cancel", admin, "");
    }

    /** Two nodes of two GPUs, one GPU of node2 taken: the second 2-GPU job shares the first one's two GPUs. */
    @Test
    void aPairOfGangsSharesTheSameGpusOfOneNode() throws Exception {
        profileLocally();
        start("tandem", new SlurmSettings(null, List.of("node1", "node2"), 2, 81_920), true);
        long a = submitGang(2, List.of(host.trainScript(), "100", "0.1"), RESNET);
        TestApi.await(LONG, "job " + a + " to run in Slurm", () -> slurmJob(a, 1).contains("JobState=RUNNING"));
        long filler = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "Filler"));
        TestApi.await(LONG, "the filler to run in Slurm", () -> slurmJob(filler, 1).contains("JobState=RUNNING"));
        long b = submitGang(2, List.of(host.trainScript(), "40", "0.1"), RESNET);
        TestApi.await(LONG, "job " + b + " to pair with " + a, () -> api.state(admin, b).equals("paired"));
        api.awaitPartner(admin, b, a, LONG);
        assertThat(gpuIds(b)).isEqualTo(gpuIds(a));
        TestApi.await(LONG, "both to run in Slurm", () -> slurmJob(b, 1).contains("JobState=RUNNING"));
        String node = slurmJob(a, 1).replaceAll(".* NodeList=(\\S+) .*", "$1");
        assertThat(slurmJob(b, 1)).contains("NodeList=" + node);
        TestApi.await(LONG, "both to succeed", () -> api.state(admin, a).equals("succeeded") && api.state(admin, b).equals("succeeded"));
        assertThat(api.get("/jobs/" + b + "/logs", admin).json().get("data").asText()).contains("(Slurm node " + node + ", GPU 0,1)");
        api.post("/jobs/" + filler + "/cancel", admin, "");
    }

    @Test
    void aNewWorkloadIsProfiledInsideItsSlurmJobThenPaired() throws Exception {
        // the node's nvidia-smi and dcgmi are the test doubles (a node with two H100s); real nodes use their PATH's
        host = FakeGpuHost.install(dir.resolve("host"), "h100x2", true, false);
        Path bin = host.dir().resolve("bin");
        // a window long enough for the nvidia-smi double (a bash loop) to give the profiler's minimum of readings
        profileMs = 3000;
        start("tandem", new SlurmSettings(null, List.of("node1"), 1, 81_920, bin.resolve("nvidia-smi").toString(), bin.resolve("dcgmi").toString()), true);
        long a = submit(List.of(host.trainScript(), "100", "0.1"), RESNET);
        TestApi.await(LONG, "job " + a + " to be profiled", () -> api.get("/profiles", admin).json().get("profiles").size() == 1);
        JsonNode p = api.get("/profiles", admin).json().get("profiles").get(0);
        // the node's GPU 0 (the job's: CUDA_VISIBLE_DEVICES=0), not its idle GPU 1, as recorded in samples-h100x2.csv
        assertThat(p.get("gpu_util").asDouble()).isEqualTo(31.0);
        assertThat(p.get("gmem_mib").asDouble()).isEqualTo(2048.0);
        assertThat(p.get("sm_active").asDouble()).isEqualTo(0.312);
        assertThat(p.get("samples").asInt()).isGreaterThanOrEqualTo(5);
        assertThat(p.get("source_job").asLong()).isEqualTo(a);
        assertThat(p.get("solo_speed").asDouble()).isBetween(3.0, 12.0);
        Path jobDir = dir.resolve("state/jobs/" + a);
        assertThat(jobDir.resolve("nvidia-smi-1.out")).isNotEmptyFile();
        assertThat(jobDir.resolve("samples-1.done")).exists(); // the window ended while the job ran on
        TestApi.await(LONG, "job " + a + " to run on, profiled", () -> api.state(admin, a).equals("running"));

        long b = submit(List.of(host.trainScript(), "20", "0.1"), RESNET);
        TestApi.await(LONG, "job " + b + " to pair with " + a, () -> api.state(admin, b).equals("paired"));
        assertThat(api.job(admin, b).get("reason").asText()).startsWith("paired " + b + " with " + a);
        TestApi.await(LONG, "both to run in Slurm", () -> slurmJob(a, 1).contains("JobState=RUNNING") && slurmJob(b, 1).contains("JobState=RUNNING"));
        assertThat(jobDir.resolve("profile-1")).exists();
        assertThat(dir.resolve("state/jobs/" + b + "/profile-1")).doesNotExist(); // its workload has a profile: no sampling
        assertThat(states(a)).containsSubsequence("profiling", "running", "paired");
        api.post("/jobs/" + a + "/cancel", admin, "");
        TestApi.await(LONG, "job " + b + " to succeed", () -> api.state(admin, b).equals("succeeded"));
    }

    @Test
    void withShardAccountingEachJobAsksSlurmForItsShareOfTheGpu() throws Exception {
        profileLocally();
        start("tandem", new SlurmSettings(null, List.of("node1"), 1, 81_920, null, null, "shard"), true);
        long a = submit(List.of(host.trainScript(), "80", "0.1"), RESNET);
        TestApi.await(LONG, "job " + a + " to run in Slurm", () -> slurmJob(a, 1).contains("JobState=RUNNING"));
        long b = submit(List.of(host.trainScript(), "30", "0.1"), RESNET);
        TestApi.await(LONG, "job " + b + " to pair with " + a, () -> api.state(admin, b).equals("paired"));
        TestApi.await(LONG, "both to run in Slurm", () -> slurmJob(b, 1).contains("JobState=RUNNING") && slurmJob(a, 1).contains("JobState=RUNNING"));
        // node1: 4 GPUs, 16 shards: alone a whole GPU's 4, the partner that joined half of one
        assertThat(slurmJob(a, 1)).contains("TresPerNode=gres:shard:4");
        assertThat(slurmJob(b, 1)).contains("TresPerNode=gres:shard:2");
        String log = api.get("/jobs/" + b + "/logs", admin).json().get("data").asText();
        assertThat(log).contains("(Slurm node node1, GPU 0)");
        TestApi.await(LONG, "both to succeed", () -> api.state(admin, a).equals("succeeded") && api.state(admin, b).equals("succeeded"));
    }

    @Test
    void aCancelledJobIsCancelledInSlurm() throws Exception {
        start();
        long id = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "Long"));
        TestApi.await(LONG, "it to run in Slurm", () -> slurmJob(id, 1).contains("JobState=RUNNING"));
        assertThat(api.post("/jobs/" + id + "/cancel", admin, "").json().get("state").asText()).isEqualTo("cancelled");
        TestApi.await(LONG, "Slurm to cancel it", () -> slurmJob(id, 1).contains("JobState=CANCELLED"));
        TestApi.await(LONG, "its output to be complete", () -> api.get("/jobs/" + id + "/logs", admin).json().get("complete").asBoolean());
        assertThat(states(id)).endsWith("cancelled");
    }

    @Test
    void aFailingJobIsRetriedThenFailedWithItsExitCode() throws Exception {
        start();
        long id = submit(List.of(host.trainScript(), "2", "0.05", "--exit", "3"), Map.of("model", "Broken"));
        TestApi.await(LONG, "job to fail", () -> api.state(admin, id).equals("failed"));
        JsonNode job = api.job(admin, id);
        assertThat(job.get("attempts").asInt()).isEqualTo(3);
        assertThat(job.get("reason").asText()).contains("exited with code 3").contains("failed after 3 attempt(s)");
        assertThat(slurmJob(id, 3)).contains("JobState=FAILED").contains("ExitCode=3:0");
    }

    /**
     * A host memory limit becomes the Slurm job's --mem, which the CI cluster enforces by polling
     * (JobAcctGatherParams=OverMemoryKill, .ci/slurm-up.sh): a job over it is killed by Slurm and failed at once, as under
     * the local executor's cgroups; one within it runs. A process limit has no Slurm counterpart and is refused.
     */
    @Test
    void aHostMemoryLimitIsTheSlurmJobsMemoryAndAJobOverItFailsAtOnce() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "needs python3");
        start();
        String hog = "import time\nb = bytearray(512 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint('allocated', flush=True)\n"
                + "time.sleep(60)\nprint('survived', flush=True)\n";
        long over = api.submit(admin, TestApi.json(Map.of("argv", List.of("/usr/bin/python3", "-c", hog), "workdir", dir.toString(),
                "signature", Map.of("model", "Hog"), "limits", Map.of("host_memory_mib", 64))));
        TestApi.await(LONG, "the memory hog to fail", () -> api.state(admin, over).equals("failed"));
        JsonNode job = api.job(admin, over);
        assertThat(job.get("attempts").asInt()).as("not retried").isEqualTo(1);
        assertThat(job.get("reason").asText()).contains("exited with code 137 (killed by signal 9) over its host memory limit; not run again");
        assertThat(slurmJob(over, 1)).contains("MinMemoryNode=64M");
        assertThat(api.get("/jobs/" + over + "/logs", admin).json().get("data").asText()).contains("Exceeded job memory limit").doesNotContain("survived");

        long within = api.submit(admin, TestApi.json(Map.of("argv", List.of("/usr/bin/python3", "-c", "b = bytearray(32 << 20); print('fine')"),
                "workdir", dir.toString(), "signature", Map.of("model", "Small"), "limits", Map.of("host_memory_mib", 1024))));
        TestApi.await(LONG, "the small job to succeed", () -> api.state(admin, within).equals("succeeded"));
        assertThat(slurmJob(within, 1)).contains("MinMemoryNode=1G");

        var refused = api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("true"), "workdir", dir.toString(), "limits", Map.of("processes", 64))));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("field").asText()).isEqualTo("limits");
        assertThat(refused.json().get("error").asText()).contains("Slurm sets no limit on the number of a job's processes");
    }

    /**
     * A GPU another Slurm job holds takes no tandem run: tandem asks Slurm for no gpu GRES, so a job that holds one is
     * someone else's, and the job's details ({@code scontrol show job -d}, read every few seconds) name the GPU. The daemon marks it
     * unusable with why, starts its jobs on the node's other GPU, and uses the GPU again once that job has ended.
     * (Before, tandem placed its runs on such a GPU beside the other job.)
     */
    @Test
    void aGpuAnotherSlurmJobHoldsTakesNoTandemRun() throws Exception {
        start("fifo", new SlurmSettings(null, List.of("node1"), 2, 81_920), true);
        String foreign = sh("sbatch", "--parsable", "--gres=gpu:1", "--nodelist=node1", "--output=/dev/null", "--wrap", "sleep 300").strip();
        long b;
        try {
            TestApi.await(LONG, "the daemon to see the other job's GPU", () -> !api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").isNull());
            assertThat(api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").asText())
                    .isEqualTo("GPU 0 of Slurm node node1 is held by another Slurm job (gpu GRES)");
            assertThat(api.get("/gpus", admin).json().get("gpus").get(1).get("unavailable").isNull()).isTrue();
            long a = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "Beside"));
            b = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "Behind"));
            TestApi.await(LONG, "job " + a + " to run in Slurm", () -> slurmJob(a, 1).contains("JobState=RUNNING"));
            assertThat(gpuIds(a)).containsExactly(1);
            Thread.sleep(3000); // rounds pass: the second job is not put on the other job's GPU
            assertThat(api.state(admin, b)).isEqualTo("pending");
        } finally {
            sh("scancel", foreign);
        }
        TestApi.await(LONG, "the waiting job to run on the freed GPU", () -> slurmJob(b, 1).contains("JobState=RUNNING"));
        assertThat(gpuIds(b)).containsExactly(0);
    }

    /**
     * The cluster's settings are read again while the daemon runs: once an operator turns memory enforcement off
     * ({@code scontrol reconfigure} without OverMemoryKill), a submission with a host memory limit is refused, naming
     * what the cluster lists, instead of being taken and run unenforced; once it is back, such submissions are taken.
     */
    @Test
    void aHostMemoryLimitIsRefusedOnceTheClusterStopsEnforcingIt() throws Exception {
        start();
        Path conf = Path.of(System.getenv("SLURM_CONF"));
        String original = Files.readString(conf);
        // held: the probes that are taken wait, and never start
        java.util.function.Supplier<TestApi.Response> limited = () -> api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("true"),
                "workdir", dir.toString(), "signature", Map.of("model", "Limited"), "limits", Map.of("host_memory_mib", 1024), "hold", true)));
        assertThat(limited.get().status()).isEqualTo(201);
        try {
            Files.writeString(conf, original.replace("JobAcctGatherParams=OverMemoryKill", "#JobAcctGatherParams=OverMemoryKill"));
            scontrol("reconfigure");
            TestApi.await(LONG, "the daemon to refuse a host memory limit", () -> {
                sleep(500);
                return limited.get().status() == 400;
            });
            TestApi.Response refused = limited.get();
            assertThat(refused.json().get("field").asText()).isEqualTo("limits");
            assertThat(refused.json().get("error").asText()).contains("does not enforce a job's memory").contains("JobAcctGatherParams=(null)");
        } finally {
            Files.writeString(conf, original);
            scontrol("reconfigure");
        }
        TestApi.await(LONG, "the daemon to take a host memory limit again", () -> {
            sleep(500);
            return limited.get().status() == 201;
        });
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A node Slurm drains takes no new runs: the daemon asks Slurm for its nodes' states every few seconds, marks the
     * node's GPUs unusable with Slurm's word for why ({@code /gpus}), and starts jobs on the other node only; once the
     * node is resumed its GPU takes runs again. (Before, a drained node's GPUs were given jobs that then sat pending in
     * Slurm while GPUs of other nodes idled.)
     */
    @Test
    void aDrainedNodeTakesNoNewRunsUntilItIsResumed() throws Exception {
        start("fifo", new SlurmSettings(null, List.of("node1", "node2"), 1, 81_920), true);
        scontrol("update", "nodename=node1", "state=drain", "reason=tandem-test");
        TestApi.await(LONG, "the daemon to see node1 drained",
                () -> api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").asText().startsWith("Slurm node node1 is "));
        assertThat(api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").asText()).contains("DRAIN");
        assertThat(api.get("/gpus", admin).json().get("gpus").get(1).get("unavailable").isNull()).isTrue();
        long a = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "First"));
        long b = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "Second"));
        TestApi.await(LONG, "job " + a + " to run in Slurm", () -> slurmJob(a, 1).contains("JobState=RUNNING"));
        assertThat(slurmJob(a, 1)).contains("NodeList=node2");
        Thread.sleep(3000); // rounds pass: the second job is not put on the drained node's idle GPU
        assertThat(api.state(admin, b)).isEqualTo("pending");
        assertThat(slurmJob(b, 1)).isEmpty();

        scontrol("update", "nodename=node1", "state=resume");
        TestApi.await(LONG, "job " + b + " to run on node1 once it is back", () -> slurmJob(b, 1).contains("JobState=RUNNING"));
        assertThat(slurmJob(b, 1)).contains("NodeList=node1");
        assertThat(api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").isNull()).isTrue();
        api.post("/jobs/" + a + "/cancel", admin, "");
        api.post("/jobs/" + b + "/cancel", admin, "");
    }

    /**
     * A node whose CPUs other Slurm jobs hold takes no new runs: the daemon reads each node's free CPUs and memory with
     * its state, marks its GPUs unusable with why, and starts jobs on the other node; once Slurm frees them, the node's
     * GPU takes runs again. (Before, tandem handed node1 a job that sat PENDING in Slurm beside an idle GPU, and counted
     * it as running.)
     */
    @Test
    void aNodeWhoseCpusOtherSlurmJobsHoldTakesNoNewRunsUntilSlurmFreesThem() throws Exception {
        start("fifo", new SlurmSettings(null, List.of("node1", "node2"), 1, 81_920), true);
        String foreign = sh("sbatch", "--parsable", "--nodelist=node1", "--cpus-per-task=16", "--output=/dev/null", "--wrap", "sleep 300").strip();
        long a, b;
        try {
            TestApi.await(LONG, "the daemon to see node1's CPUs taken", () -> !api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").isNull());
            assertThat(api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").asText())
                    .isEqualTo("Slurm node node1 has no free CPU (16 of 16 allocated to Slurm jobs)");
            a = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "First"));
            b = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "Second"));
            long first = a;
            TestApi.await(LONG, "job " + a + " to run in Slurm", () -> slurmJob(first, 1).contains("JobState=RUNNING"));
            assertThat(slurmJob(a, 1)).contains("NodeList=node2");
            Thread.sleep(3000); // rounds pass: the second job is not handed to node1, where Slurm would keep it waiting
            assertThat(api.state(admin, b)).isEqualTo("pending");
            assertThat(slurmJob(b, 1)).isEmpty();
        } finally {
            sh("scancel", foreign);
        }
        long second = b;
        TestApi.await(LONG, "job " + b + " to run on node1 once its CPUs are free", () -> slurmJob(second, 1).contains("JobState=RUNNING"));
        assertThat(slurmJob(b, 1)).contains("NodeList=node1");
        api.post("/jobs/" + a + "/cancel", admin, "");
        api.post("/jobs/" + b + "/cancel", admin, "");
    }

    /**
     * Two tandem daemons scheduling the same node, each with its own state directory: each sees the other's runs by
     * their Slurm comment, which names their GPUs, and puts none of its own beside them; once the other's run has
     * ended, the GPU takes its runs again. (Before, both put their runs on node1's one GPU, each unaware of the other.)
     */
    @Test
    void twoTandemDaemonsOnOneNodeDoNotShareItsGpuUnawares() throws Exception {
        SlurmSettings node1 = new SlurmSettings(null, List.of("node1"), 1, 81_920);
        start("fifo", node1, true);
        ServerConfig c = host.config(dir.resolve("state2"), "fifo", Sharing.TIME_SLICING);
        try (TandemServer other = TandemServer.start(new ServerConfig(c.stateDir(), c.host(), 0, null, c.policy(), c.sharing(), c.mpsThreadPercentage(),
                c.scheduler(), c.stopGraceMs(), c.maxBodyBytes(), true, c.tools(), "slurm", node1))) {
            TestApi otherApi = new TestApi(other.url());
            String otherAdmin = Files.readString(other.adminTokenFile()).strip();
            long mine = submit(List.of(host.trainScript(), "1000", "0.1"), Map.of("model", "Mine"));
            TestApi.await(LONG, "this daemon's job to run in Slurm", () -> slurmJob(mine, 1).contains("JobState=RUNNING"));
            String slurmId = slurmJob(mine, 1).replaceAll("^JobId=(\\d+) .*", "$1");
            TestApi.await(LONG, "the other daemon to see GPU 0 taken", () -> !otherApi.get("/gpus", otherAdmin).json().get("gpus").get(0).get("unavailable").isNull());
            assertThat(otherApi.get("/gpus", otherAdmin).json().get("gpus").get(0).get("unavailable").asText())
                    .isEqualTo("GPU 0 of Slurm node node1 is held by Slurm job " + slurmId + " of another tandem daemon (" + read(dir.resolve("state/slurm-instance")) + ")");
            long theirs = otherApi.submit(otherAdmin, TestApi.json(Map.of("argv", List.of(host.trainScript(), "5", "0.1"), "workdir", dir.toString(),
                    "signature", Map.of("model", "Theirs"), "memory_mib", 4096)));
            Thread.sleep(3000); // rounds pass: the other daemon does not put its job beside this one's
            assertThat(otherApi.state(otherAdmin, theirs)).isEqualTo("pending");
            assertThat(slurmJob(dir.resolve("state2"), theirs, 1)).isEmpty();
            assertThat(api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").isNull()).as("this daemon's own run is not someone else's").isTrue();

            api.post("/jobs/" + mine + "/cancel", admin, "");
            TestApi.await(LONG, "the other daemon's job to run once the GPU is free", () -> otherApi.state(otherAdmin, theirs).equals("succeeded"));
            assertThat(slurmJob(dir.resolve("state2"), theirs, 1)).contains("NodeList=node1")
                    .contains("Comment=tandem:" + theirs + ":1:" + read(dir.resolve("state2/slurm-instance")) + ":0 "); // its comment names GPU 0
        }
    }

    /**
     * A run Slurm keeps waiting for a reason tandem does not read (here a reservation of node1 for another user) is
     * cancelled there after {@code --slurm-pending-limit}, and its job goes back to tandem's queue with Slurm's reason,
     * as a run that did not run (its history said why it made no progress before); once the node is free again a later
     * attempt runs. (Before, the job stayed PENDING in
     * Slurm for as long as the reservation lasted, counted by tandem as running on node1's GPU.)
     */
    @Test
    void aRunSlurmKeepsWaitingIsCancelledThereAndItsJobRequeued() throws Exception {
        start("fifo", new SlurmSettings(null, List.of("node1"), 1, 81_920).withPendingLimitMs(4000), true);
        sh("scontrol", "create", "reservation", "reservationname=tandem-test", "starttime=now", "duration=10", "nodes=node1", "users=nobody");
        long id;
        try {
            id = submit(List.of(host.trainScript(), "5", "0.1"), Map.of("model", "Kept"));
            TestApi.await(LONG, "the daemon to give the waiting run up", () -> !reasonOfFirst(id, "pending").isEmpty());
            assertThat(reasonOfFirst(id, "pending")).containsPattern("PENDING for \\d+ s \\(ReqNodeNotAvail").contains("cancelled there, it did not run")
                    .contains("attempt 1 of 3, requeued");
            TestApi.await(LONG, "Slurm to end the cancelled run", () -> slurmJob(id, 1).contains("JobState=CANCELLED"));
            List<String> reasons = new ArrayList<>();
            for (JsonNode e : api.job(admin, id).get("events")) reasons.add(e.get("reason").asText());
            assertThat(reasons).as("the job's history says why its run makes no progress, before it is given up").anySatisfy(r ->
                    assertThat(r).startsWith("Slurm keeps its run waiting: Slurm job ").contains("PENDING (ReqNodeNotAvail").endsWith("if it has not started after 4 s"));
        } finally {
            scontrol("delete", "reservation=tandem-test");
        }
        TestApi.await(LONG, "the job to run once node1 is free", () -> api.state(admin, id).equals("succeeded"));
        assertThat(api.job(admin, id).get("attempts").asInt()).isGreaterThanOrEqualTo(2);
    }

    /**
     * A working directory the node does not have (here: removed after submission): Slurm would run the job in /tmp,
     * saying so only in its output; tandem's batch script refuses to run it, and the daemon says why in the job's
     * reason and counts the attempt, until the job fails with that reason. It never runs anywhere else.
     */
    @Test
    void aJobWhoseWorkingDirectoryIsGoneOnTheNodeDoesNotRunInTmp() throws Exception {
        start("fifo", new SlurmSettings(null, List.of("node1"), 1, 81_920), true);
        Path work = Files.createDirectories(dir.resolve("work"));
        String marker = "tandem-nodir-" + System.nanoTime();
        long id = api.submit(admin, TestApi.json(Map.of("argv", List.of("/usr/bin/touch", marker), "workdir", work.toString(),
                "signature", Map.of("model", "Homeless"), "hold", true)));
        Files.delete(work);
        api.post("/jobs/" + id + "/release", admin, "");
        TestApi.await(LONG, "job " + id + " to fail", () -> api.state(admin, id).equals("failed"));
        assertThat(api.job(admin, id).get("reason").asText()).contains("cannot enter the job's working directory " + work + " on Slurm node node1");
        List<String> reasons = new ArrayList<>();
        for (JsonNode e : api.job(admin, id).get("events")) reasons.add(e.get("reason").asText());
        assertThat(reasons).anySatisfy(r -> assertThat(r).contains("the job did not run").contains("attempt 1 of 3, requeued"));
        assertThat(Path.of("/tmp", marker)).as("Slurm's fallback directory").doesNotExist();
        assertThat(api.get("/jobs/" + id + "/logs", admin).json().get("data").asText()).contains("[tandem] cannot enter the job's working directory");
    }

    @Test
    void aNodeFailureRequeuesTheJobWhichRunsAgain() throws Exception {
        start();
        long id = submit(List.of(host.trainScript(), "30", "0.1"), Map.of("model", "Victim"));
        TestApi.await(LONG, "it to run in Slurm", () -> slurmJob(id, 1).contains("JobState=RUNNING"));
        scontrol("update", "nodename=node1", "state=down", "reason=tandem-test");
        TestApi.await(LONG, "Slurm to fail it", () -> slurmJob(id, 1).contains("JobState=NODE_FAIL"));
        TestApi.await(LONG, "the daemon to requeue it", () -> !reasonOfFirst(id, "pending").isEmpty());
        assertThat(reasonOfFirst(id, "pending")).contains("ended NODE_FAIL on node node1").contains("left no exit status").contains("attempt 1 of 3, requeued")
                .doesNotContain("daemon was down");
        // the node comes back (ReturnToService=2 here); the daemon requeued the job and starts attempt 2
        TestApi.await(LONG, "the job to succeed on attempt 2", () -> api.state(admin, id).equals("succeeded"));
        assertThat(api.job(admin, id).get("attempts").asInt()).isEqualTo(2);
        List<String> s = states(id);
        assertThat(s.subList(s.indexOf("profiling") + 1, s.size())).contains("pending").endsWith("succeeded");
    }

    @Test
    void aJobRunsOnThroughASlurmctldRestartAndOneSubmittedMeanwhileStartsOnceItIsBack() throws Exception {
        Path ctl = slurmctldScript();
        start("tandem", new SlurmSettings(null, List.of("node1"), 2, 81_920), true);
        long a = submit(List.of(host.trainScript(), "300", "0.1"), Map.of("model", "Steady"));
        TestApi.await(LONG, "it to run in Slurm", () -> slurmJob(a, 1).contains("JobState=RUNNING"));
        long b;
        try {
            sh(ctl.toString(), "stop");
            b = submit(List.of(host.trainScript(), "10", "0.1"), Map.of("model", "SubmittedDuringOutage"));
            // long enough for the daemon's scontrol (and maybe sbatch) to give up (~9 s each) while slurmctld is down
            Thread.sleep(12_000);
            assertThat(api.state(admin, a)).isIn("profiling", "running");
            assertThat(api.state(admin, b)).isEqualTo("pending");
            assertThat(api.job(admin, b).get("attempts").asInt()).isZero();
        } finally {
            sh(ctl.toString(), "start");
        }
        TestApi.await(Duration.ofSeconds(90), "job " + b + " to succeed", () -> api.state(admin, b).equals("succeeded"));
        TestApi.await(Duration.ofSeconds(90), "job " + a + " to succeed", () -> api.state(admin, a).equals("succeeded"));
        assertRanOnceInSlurm(a);
        assertRanOnceInSlurm(b);
        // job a ran through the outage in one Slurm job and one tandem run
        assertThat(states(a)).containsExactly("pending", "profiling", "running", "succeeded");
    }

    @Test
    void aStartThatCannotReachSlurmctldGoesBackToTheQueueWithoutUsingAnAttempt() throws Exception {
        Path ctl = slurmctldScript();
        start();
        long id;
        try {
            sh(ctl.toString(), "stop");
            // nothing runs, so the daemon learns that slurmctld is down only when it tries to start this job
            // 3 s of work: longer than the 1 s profiling window, so the run is seen profiling, then running
            id = submit(List.of(host.trainScript(), "30", "0.1"), Map.of("model", "Patient"));
            TestApi.await(Duration.ofSeconds(40), "the start to fail", () -> states(id).contains("profiling") && api.state(admin, id).equals("pending"));
            assertThat(reasonOfFirst(id, "pending")).startsWith("not started (").contains("Unable to contact slurm controller");
            assertThat(api.job(admin, id).get("attempts").asInt()).isZero();
        } finally {
            sh(ctl.toString(), "start");
        }
        TestApi.await(Duration.ofSeconds(90), "job " + id + " to succeed", () -> api.state(admin, id).equals("succeeded"));
        assertRanOnceInSlurm(id);
        assertThat(states(id)).doesNotContain("failed").endsWith("profiling", "running", "succeeded");
    }

    /** .ci/slurmctld.sh, where this test may use it: as root, on a cluster .ci/slurm-up.sh started. */
    static Path slurmctldScript() {
        Path ctl = Path.of("..", ".ci", "slurmctld.sh").toAbsolutePath().normalize();
        assumeTrue(Files.isRegularFile(ctl), "no .ci/slurmctld.sh to restart slurmctld with");
        assumeTrue("root".equals(System.getProperty("user.name")), "restarting slurmctld needs root");
        assumeTrue(Files.exists(Path.of(System.getenv("SLURM_CONF")).getParent().resolveSibling("run/slurmctld.pid")),
                "SLURM_CONF is not a cluster started by .ci/slurm-up.sh");
        return ctl;
    }

    /** One tandem attempt, one Slurm job (by this daemon's comments), completed. */
    void assertRanOnceInSlurm(long id) {
        assertThat(api.job(admin, id).get("attempts").asInt()).as("attempts of job " + id).isEqualTo(1);
        assertThat(slurmJob(id, 1)).contains("JobState=COMPLETED");
        String instance = read(dir.resolve("state/slurm-instance"));
        assertThat(scontrol("show", "job", "-o").lines().filter(l -> l.matches(".* Comment=tandem:" + id + ":\\d+:" + instance + ":[0-9,]* .*")).count())
                .as("Slurm jobs submitted for job " + id).isEqualTo(1);
    }

    /** The reason of the first event that moved the job to {@code state} from another state. */
    String reasonOfFirst(long id, String state) {
        for (JsonNode e : api.job(admin, id).get("events")) {
            if (e.get("to").asText().equals(state) && !e.get("from").isNull()) return e.get("reason").asText();
        }
        return "";
    }

    /** Runs a command (a Slurm client as another user of the cluster would, a script), fails unless it succeeds, returns its output. */
    static String sh(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", cmd) + ": " + out).isZero();
        return out;
    }

    @Test
    void aRestartedDaemonAdoptsItsSlurmJobInsteadOfSubmittingAgain() throws Exception {
        start("tandem", new SlurmSettings(null, List.of("node1", "node2"), 0, 81_920), false);
        long id = submit(List.of(host.trainScript(), "60", "0.1"), Map.of("model", "Survivor"));
        TestApi.await(LONG, "it to run in Slurm", () -> slurmJob(id, 1).contains("JobState=RUNNING"));
        String before = slurmJob(id, 1).replaceAll("^JobId=(\\d+).*", "$1");
        server.close();
        server = null;
        assertThat(slurmJob(id, 1)).contains("JobState=RUNNING"); // Slurm runs it on while no daemon watches

        start("tandem", new SlurmSettings(null, List.of("node1", "node2"), 0, 81_920), true);
        TestApi.await(LONG, "the adopted job to succeed", () -> api.state(admin, id).equals("succeeded"));
        assertThat(api.job(admin, id).get("attempts").asInt()).isEqualTo(1);
        assertThat(slurmJob(id, 1)).startsWith("JobId=" + before + " ").contains("JobState=COMPLETED");
        assertThat(slurmJob(id, 2)).isEmpty();
    }
}
