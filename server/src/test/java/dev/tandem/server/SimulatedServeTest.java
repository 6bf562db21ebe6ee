package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.DataSource;
import dev.tandem.data.LucidPairReader;
import dev.tandem.data.ProfileReader;
import dev.tandem.data.truth.ContentionFallback;
import dev.tandem.data.truth.MeasuredTruth;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.exec.simulated.SimulatedExecutor;
import dev.tandem.server.exec.simulated.SimulatedSettings;
import dev.tandem.server.sched.SchedulerConfig;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code tandem serve --executor simulated}: the whole daemon (API, store, scheduler, profiling, pairing) on GPUs
 * simulated from the bundled Lucid data, no nvidia-smi anywhere (an empty tool path).
 */
public class SimulatedServeTest {
    static final Duration LONG = Duration.ofSeconds(60);
    static final WorkloadSignature RESNET = new WorkloadSignature("ResNet18", "CIFAR-10", 32, false);
    @TempDir Path dir;
    TandemServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    ServerConfig config(String cluster, double timeScale, String policy) {
        return new ServerConfig(dir.resolve("state"), "127.0.0.1", 0, null, policy, Sharing.TIME_SLICING, 50,
                new SchedulerConfig(100, 500, 1000, 1000, 3, 512).withKnownProfiles("none"), 2000, 64 * 1024, true, new ToolPath(dir.toString()),
                "simulated", null, new SimulatedSettings(cluster, timeScale));
    }

    static String job(WorkloadSignature s, long iterations) {
        return TestApi.json(Map.of("argv", List.of("train.py"), "iterations", iterations,
                "signature", Map.of("model", s.model(), "dataset", s.dataset(), "batch_size", s.batchSize(), "amp", s.amp())));
    }

    List<String> states(TestApi api, String token, long id) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : api.job(token, id).get("events")) out.add(e.get("to").asText());
        return out;
    }

    @Test
    void jobsAreProfiledPairedAndFinishedOnSimulatedGpusAtTheMeasuredSpeeds() throws Exception {
        double scale = 600;
        server = TandemServer.start(config("1x1:RTX3090-24GB", scale, "fifo-packed"));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        JsonNode gpus = api.get("/gpus", admin).json();
        assertThat(gpus.get("sharing").asText()).isEqualTo("simulated");
        assertThat(gpus.get("gpus").get(0).get("name").asText()).isEqualTo("simulated RTX3090");
        assertThat(gpus.get("gpus").get(0).get("memory_total_mib").asLong()).isEqualTo(24_576);

        JobProfile resnet = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0)).find(RESNET).orElseThrow();
        double pairSpeed = new MeasuredTruth("lucid", LucidPairReader.read(DataSource.LUCID_PAIRS, true), ContentionFallback.standard())
                .pair(resnet, resnet, 1).speedA();
        // 3 s alone to be profiled; then two that share the one GPU for about 8 s of wall time (under fifo-packed, which
        // pairs whatever fits: tandem keeps a job that outlasts all other work off a partner, and on one GPU a job arriving
        // beside a running one of its length then waits for it, in this daemon as in `tandem simulate`)
        long first = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * scale * 3)));
        TestApi.await(LONG, "the first job to be profiled and done", () -> api.state(admin, first).equals("succeeded"));
        assertThat(states(api, admin, first)).contains("profiling");
        long a = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * scale * 8)));
        long b = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * scale * 8)));
        TestApi.await(LONG, "two jobs paired", () -> api.state(admin, b).equals("paired") && api.state(admin, a).equals("paired"));
        TestApi.await(LONG, "an observed speed while paired", () -> !api.job(admin, b).get("observed_speed").isNull());
        assertThat(api.job(admin, b).get("observed_speed").asDouble()).as("measured pair speed %.3f", pairSpeed).isCloseTo(pairSpeed, within(0.15));
        TestApi.await(LONG, "all three to succeed", () -> List.of(first, a, b).stream().allMatch(id -> api.state(admin, id).equals("succeeded")));
        assertThat(api.get("/profiles", admin).json().get("profiles").get(0).get("signature").asText()).isEqualTo("ResNet18/CIFAR-10/bs32");
        String log = api.get("/jobs/" + b + "/logs", admin).json().get("data").asText();
        assertThat(log).contains("on simulated GPU(s) [0]").contains("tandem:progress iter=").endsWith("done\n");
        // each ran the iterations it declared: three declarations judged, none off, declared lengths still trusted
        String metrics = api.get("/metrics", null).body();
        assertThat(metrics).contains("tandem_length_estimate_samples 3.0").contains("tandem_length_estimate_error 0.0")
                .contains("tandem_length_estimate_trusted 1.0");
    }

    /**
     * With {@code --time-scale}, runs advance that many simulated seconds per wall second; the speeds the daemon
     * observes are still relative to solo. Two ResNet-18 jobs of a known workload pair at once (fifo-packed) and are
     * observed near their measured pair speed, not 600 times it (as when the executor told the daemon its GPUs'
     * solo speeds per simulated second).
     */
    @Test
    void observedSpeedsOfATimeScaledDaemonAreRelativeToSolo() throws Exception {
        double scale = 600;
        server = TandemServer.start(ServeOptionsTest.parse("--executor", "simulated", "--policy", "fifo-packed", "--cluster", "1x1:RTX3090-24GB",
                "--time-scale", "600", "--observe-time", "1s", "--port", "0", "--state-dir", dir.resolve("state").toString()));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        JobProfile resnet = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0)).find(RESNET).orElseThrow();
        double pairSpeed = new MeasuredTruth("lucid", LucidPairReader.read(DataSource.LUCID_PAIRS, true), ContentionFallback.standard())
                .pair(resnet, resnet, 1).speedA();
        long a = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * scale * 20)));
        long b = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * scale * 20)));
        TestApi.await(LONG, "two jobs paired", () -> api.state(admin, b).equals("paired") && api.state(admin, a).equals("paired"));
        TestApi.await(LONG, "an observed speed while paired", () -> !api.job(admin, b).get("observed_speed").isNull());
        assertThat(api.job(admin, b).get("observed_speed").asDouble()).as("measured pair speed %.3f", pairSpeed).isCloseTo(pairSpeed, within(0.15));
    }

    /**
     * In virtual time (the clock moves only when this test moves it), srtf suspends a long job for a short one: the
     * short one's GPU is promised to it while the long one stops, `tandem show` says so, and it starts the moment the
     * long one has exited, without a refused decision in anyone's history; the long one resumes from its checkpoint.
     */
    @Test
    void aStartOnAGpuBeingFreedIsPromisedSaysSoAndHappensWhenTheRunHasExited() throws Exception {
        long t0 = 1_767_225_600_000L;
        dev.tandem.server.sched.VirtualClock clock = new dev.tandem.server.sched.VirtualClock(t0);
        ServerConfig cfg = new ServerConfig(dir.resolve("state"), "127.0.0.1", 0, null, "srtf", Sharing.TIME_SLICING, 50,
                new SchedulerConfig(100, 300_000, 60_000, 60_000, 3, 512), 2000, 64 * 1024, false, new ToolPath(dir.toString()),
                "simulated", null, new SimulatedSettings("1x1:RTX3090-24GB", 1));
        server = TandemServer.startInVirtualTime(cfg, clock);
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        JobProfile resnet = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0)).find(RESNET).orElseThrow();
        long longJob = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * 36_000)));
        server.step();
        assertThat(api.state(admin, longJob)).isEqualTo("running");
        clock.moveTo(t0 + 3_600_000);
        long shortJob = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * 600)));
        server.step(); // srtf suspends the long job for the short one
        assertThat(api.state(admin, longJob)).isEqualTo("suspended");
        JsonNode promised = api.job(admin, shortJob);
        assertThat(promised.get("state").asText()).isEqualTo("pending");
        assertThat(promised.get("reason").asText()).isEqualTo("starting on GPU(s) 0 as soon as the runs the scheduler stopped there have exited");
        assertThat(server.nextEventMillis()).as("the stopping run ends now").isEqualTo(t0 + 3_600_000);
        server.step(); // the long job's run exits, the short one starts on its GPU at the same instant
        assertThat(api.state(admin, shortJob)).isEqualTo("running");
        assertThat(api.job(admin, shortJob).get("started_at").asText()).isEqualTo(java.time.Instant.ofEpochMilli(t0 + 3_600_000).toString());
        for (long id : List.of(longJob, shortJob)) {
            for (JsonNode e : api.job(admin, id).get("events")) assertThat(e.get("reason").asText()).doesNotContain("refused");
        }
        while (!api.state(admin, longJob).equals("succeeded")) {
            clock.moveTo(server.nextEventMillis());
            server.step();
        }
        // 10 h of work, an hour of it done before the suspension: resumed from its checkpoint with 30 s of overhead, the
        // short job's 10 minutes in between
        double endH = (java.time.Instant.parse(api.job(admin, longJob).get("finished_at").asText()).toEpochMilli() - t0) / 3_600_000.0;
        assertThat(endH).isCloseTo(10 + 600 / 3600.0 + 30 / 3600.0, within(0.001));
    }

    /**
     * Two GPUs under gavel-packed (Gavel's 360 s rounds): the first job starts at once on the idle cluster and opens a
     * round; the second comes 100 s later beside an idle GPU, waits for the round's end and starts then. On a cluster
     * simulated 60 times faster the round is 360 of the cluster's seconds too (6 s of the daemon's), and the reason
     * tells the wait in the daemon's seconds.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 60})
    void gavelPackedStartsWhatArrivesInsideARoundAtTheRoundsEndAndSaysSo(int scale) throws Exception {
        long t0 = 1_767_225_600_000L;
        long roundEnd = t0 + 360_000 / scale;
        dev.tandem.server.sched.VirtualClock clock = new dev.tandem.server.sched.VirtualClock(t0);
        ServerConfig cfg = ServeOptionsTest.parse("--executor", "simulated", "--cluster", "1x2:RTX3090-24GB", "--time-scale", String.valueOf(scale),
                "--port", "0", "--state-dir", dir.resolve("state").toString(), "--policy", "gavel-packed");
        server = TandemServer.startInVirtualTime(cfg, clock);
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        long first = api.submit(admin, job(RESNET, 1_000_000));
        server.step();
        assertThat(api.state(admin, first)).isEqualTo("running");
        clock.moveTo(t0 + 100_000 / scale);
        long second = api.submit(admin, job(RESNET, 1_000_000));
        server.step();
        assertThat(api.state(admin, second)).isEqualTo("pending");
        assertThat(api.job(admin, second).get("reason").asText())
                .startsWith("waits for the next round of policy gavel-packed, in " + (scale == 1 ? "4 min" : "4 s") + ": its allocation holds for a round");
        while (server.nextEventMillis() < roundEnd) { // the daemon's own periodic round, say: nothing starts there
            clock.moveTo(server.nextEventMillis());
            server.step();
            assertThat(api.state(admin, second)).isEqualTo("pending");
        }
        assertThat(server.nextEventMillis()).as("the round's end").isEqualTo(roundEnd);
        clock.moveTo(roundEnd);
        server.step();
        assertThat(api.state(admin, second)).isEqualTo("running");
        assertThat(api.job(admin, second).get("started_at").asText()).isEqualTo(java.time.Instant.ofEpochMilli(roundEnd).toString());
    }

    /**
     * One GPU under tandem: two runs of one ResNet-18 script, 80 minutes of work each, submitted 6 s apart. The plan made
     * for the first ends before the second alone could, so the second is on the critical path; waiting for the GPU
     * and then running alone would end it later than running beside the first, so the live daemon pairs them (once the
     * first has reported progress: until then it looks as long as the plan, itself on the critical path), as
     * {@code tandem simulate} does.
     */
    @Test
    void twoRunsOfOneScriptSubmittedTogetherShareTheOneGpu() throws Exception {
        long t0 = 1_767_225_600_000L;
        dev.tandem.server.sched.VirtualClock clock = new dev.tandem.server.sched.VirtualClock(t0);
        ServerConfig cfg = ServeOptionsTest.parse("--executor", "simulated", "--cluster", "1x1:RTX3090-24GB", "--port", "0",
                "--state-dir", dir.resolve("state").toString(), "--policy", "tandem");
        server = TandemServer.startInVirtualTime(cfg, clock);
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        JobProfile resnet = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0)).find(RESNET).orElseThrow();
        long first = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * 4_800)));
        server.step();
        assertThat(api.state(admin, first)).isEqualTo("running");
        clock.moveTo(t0 + 6_000);
        long second = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * 4_800)));
        server.step();
        while (api.state(admin, second).equals("pending")) {
            clock.moveTo(server.nextEventMillis());
            server.step();
        }
        // at the next event (the first job's first progress line shows it inside the plan's horizon)
        assertThat(clock.millis() - t0).as("paired within a minute of the second submission").isLessThan(66_000);
        assertThat(api.state(admin, second)).isEqualTo("paired");
        assertThat(api.state(admin, first)).isEqualTo("paired");
        while (!api.state(admin, second).equals("succeeded")) {
            clock.moveTo(server.nextEventMillis());
            server.step();
        }
        // paired at about 0.95 of solo speed each: both done in about 1.4 h instead of 2.67 h one after the other
        double endH = (java.time.Instant.parse(api.job(admin, second).get("finished_at").asText()).toEpochMilli() - t0) / 3_600_000.0;
        assertThat(endH).isLessThan(1.6);
    }

    @Test
    void aJobSubmittedWithoutItsLengthIsNotTakenForTheShortestJob() throws Exception {
        // one GPU under srtf: a job that gave its length (1,300 s of work) has 300 s left when a job without one arrives.
        // The newcomer is taken to need as long as it has run, at least 10 minutes: more than 300 s, so the running job
        // keeps its GPU (seen as one iteration, it was the shortest job there is and suspended it at once)
        long t0 = 1_767_225_600_000L;
        dev.tandem.server.sched.VirtualClock clock = new dev.tandem.server.sched.VirtualClock(t0);
        ServerConfig cfg = new ServerConfig(dir.resolve("state"), "127.0.0.1", 0, null, "srtf", Sharing.TIME_SLICING, 50,
                new SchedulerConfig(100, 300_000, 60_000, 60_000, 3, 512), 2000, 64 * 1024, false, new ToolPath(dir.toString()),
                "simulated", null, new SimulatedSettings("1x1:RTX3090-24GB", 1));
        server = TandemServer.startInVirtualTime(cfg, clock);
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        JobProfile resnet = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0)).find(RESNET).orElseThrow();
        long known = api.submit(admin, job(RESNET, (long) (resnet.soloSpeed() * 1_300)));
        server.step();
        assertThat(api.state(admin, known)).isEqualTo("running");
        clock.moveTo(t0 + 1_000_000);
        long unknown = api.submit(admin, TestApi.json(Map.of("argv", List.of("train.py"),
                "signature", Map.of("model", RESNET.model(), "dataset", RESNET.dataset(), "batch_size", RESNET.batchSize(), "amp", RESNET.amp()))));
        server.step();
        assertThat(api.state(admin, known)).isEqualTo("running");
        assertThat(api.state(admin, unknown)).isEqualTo("pending");
        while (!api.state(admin, known).equals("succeeded")) {
            clock.moveTo(server.nextEventMillis());
            server.step();
        }
        assertThat(states(api, admin, known)).doesNotContain("suspended");
        while (api.state(admin, unknown).equals("pending")) {
            clock.moveTo(server.nextEventMillis());
            server.step();
        }
        assertThat(api.state(admin, unknown)).isEqualTo("running");
    }

    /**
     * A job submitted without its length runs, on simulated GPUs, as long as its environment's SIMULATED_ITERATIONS says
     * (the scheduler is not told: `tandem simulate --knowledge none`); a value that is no length is refused when
     * submitted, naming the field, and a job the store already holds with one (submitted to a daemon with another
     * executor) fails at its start with why.
     */
    @Test
    void aJobOfUnknownLengthRunsTheLengthItsEnvironmentSetsOnSimulatedGpus() throws Exception {
        long t0 = 1_767_225_600_000L;
        dev.tandem.server.sched.VirtualClock clock = new dev.tandem.server.sched.VirtualClock(t0);
        ServerConfig cfg = new ServerConfig(dir.resolve("state"), "127.0.0.1", 0, null, "fifo", Sharing.TIME_SLICING, 50,
                new SchedulerConfig(100, 300_000, 60_000, 60_000, 3, 512), 2000, 64 * 1024, false, new ToolPath(dir.toString()),
                "simulated", null, new SimulatedSettings("1x1:RTX3090-24GB", 1));
        server = TandemServer.startInVirtualTime(cfg, clock);
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        JobProfile resnet = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0)).find(RESNET).orElseThrow();
        Map<String, Object> signature = Map.of("model", RESNET.model(), "dataset", RESNET.dataset(), "batch_size", RESNET.batchSize(), "amp", RESNET.amp());
        long unknown = api.submit(admin, TestApi.json(Map.of("argv", List.of("train.py"), "signature", signature,
                "env", Map.of(SimulatedExecutor.LENGTH_VARIABLE, String.valueOf(Math.round(resnet.soloSpeed() * 600))))));
        TestApi.Response refused = api.post("/jobs", admin, TestApi.json(Map.of("argv", List.of("train.py"), "signature", signature,
                "env", Map.of(SimulatedExecutor.LENGTH_VARIABLE, "ten"))));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("field").asText()).isEqualTo("env.SIMULATED_ITERATIONS");
        assertThat(refused.json().get("error").asText()).endsWith("a whole number of iterations above 0, got 'ten'");
        long bad = server.store().insertJob(new dev.tandem.server.store.NewJob("stored", List.of("train.py"), Map.of(SimulatedExecutor.LENGTH_VARIABLE, "ten"),
                dir.toString(), 1, 0, null, RESNET, null, dev.tandem.server.store.JobControls.NONE), "admin", clock.millis()).id();
        for (int steps = 0; !api.state(admin, bad).equals("failed"); steps++) {
            assertThat(steps).as("rounds until the job with a bad length has failed").isLessThan(10_000);
            server.step();
            long next = server.nextEventMillis();
            if (next > clock.millis() && next < Long.MAX_VALUE) clock.moveTo(next);
        }
        JsonNode job = api.job(admin, unknown);
        assertThat(job.get("state").asText()).isEqualTo("succeeded");
        long ran = Instant.parse(job.get("finished_at").asText()).toEpochMilli() - Instant.parse(job.get("started_at").asText()).toEpochMilli();
        assertThat(ran).isBetween(599_000L, 601_000L);
        assertThat(api.job(admin, bad).get("reason").asText())
                .contains("environment variable SIMULATED_ITERATIONS of job " + bad + ": a whole number of iterations above 0, got 'ten'")
                .contains("not tried again, as every attempt would fail alike");
        assertThat(api.job(admin, bad).get("attempts").asInt()).as("no second start of a job no start can run").isEqualTo(1);
    }

    @Test
    void aWaitingJobIsToldWhyThePolicyWillNotPairItInThePolicysOwnTerms() throws Exception {
        // one GPU, the bundled profiles known: a ResNet-18 job runs, and a second could share it, but this site asks
        // tandem for 0.99 of solo speed. The second waits and says why with the policy's own check and bound (the
        // daemon once told its own story here: "predicted 1.6x combined ...; policy tandem did not pair them")
        long t0 = 1_767_225_600_000L;
        dev.tandem.server.sched.VirtualClock clock = new dev.tandem.server.sched.VirtualClock(t0);
        ServerConfig cfg = ServeOptionsTest.parse("--executor", "simulated", "--cluster", "1x1:RTX3090-24GB", "--time-scale", "1",
                "--port", "0", "--state-dir", dir.resolve("state").toString(), "--tandem-min-speed", "0.99");
        server = TandemServer.startInVirtualTime(cfg, clock);
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        long running = api.submit(admin, job(RESNET, 1_000_000));
        server.step();
        assertThat(api.state(admin, running)).isEqualTo("running");
        long waiting = api.submit(admin, job(RESNET, 1_000));
        server.step();
        assertThat(api.state(admin, waiting)).isEqualTo("pending");
        assertThat(api.job(admin, waiting).get("reason").asText())
                .startsWith("waits: 1 of 1 GPU(s) busy; best partner job " + running + ": predicted speeds ")
                .endsWith("is below the slowdown bound 0.99");
    }

    /**
     * Two GPUs under tandem, in virtual time: bob's 1,000 s job runs on one, alice's 2-GPU job of 600 s waits. At 650 s
     * the gang has waited longer than it runs (slowdown 2), and tandem holds both GPUs for it (the running job drains
     * within its wait); bob's 10-hour single-GPU job arriving at 700 s then does not take the idle GPU.
     */
    public record HeldGang(TandemServer server, dev.tandem.server.sched.VirtualClock clock, TestApi api, String admin, String alice, String bob,
                    long running, long gang, long single, long t0) {}

    public static HeldGang gangHeld(Path dir) throws Exception {
        return gangHeld(dir, 1);
    }

    /**
     * {@link #gangHeld(Path)} on a cluster simulated {@code scale} times faster than the daemon's clock: every moment
     * comes {@code scale} times sooner on that clock, and the policy, which reasons in the cluster's seconds, decides
     * the same (its thresholds, 600 s of wait and of run, are the cluster's).
     */
    public static HeldGang gangHeld(Path dir, int scale) throws Exception {
        long t0 = 1_767_225_600_000L;
        dev.tandem.server.sched.VirtualClock clock = new dev.tandem.server.sched.VirtualClock(t0);
        ServerConfig cfg = ServeOptionsTest.parse("--executor", "simulated", "--cluster", "1x2:RTX3090-24GB", "--time-scale", String.valueOf(scale),
                "--port", "0", "--state-dir", dir.resolve("state").toString());
        TandemServer server = TandemServer.startInVirtualTime(cfg, clock);
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        String alice = user(api, admin, "alice"), bob = user(api, admin, "bob");
        JobProfile resnet = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0)).find(RESNET).orElseThrow();
        long running = api.submit(bob, job(RESNET, (long) (resnet.soloSpeed() * 1_000)));
        long gang = api.submit(alice, gang(RESNET, 2, (long) (resnet.soloSpeed() * 600)));
        server.step();
        assertThat(api.state(bob, running)).isEqualTo("running");
        assertThat(api.state(alice, gang)).isEqualTo("pending");
        assertThat(api.get("/gpus", admin).json().get("gpus")).allSatisfy(g -> assertThat(g.get("held").asBoolean()).isFalse());
        clock.moveTo(t0 + 650_000 / scale); // a periodic round
        server.step();
        clock.moveTo(t0 + 700_000 / scale);
        long single = api.submit(bob, job(RESNET, (long) (resnet.soloSpeed() * 36_000)));
        server.step();
        return new HeldGang(server, clock, api, admin, alice, bob, running, gang, single, t0);
    }

    /** {@link #gangHeld}: every view of the daemon tells of the hold in the same terms, the gang's id only to its owner and admins. */
    @Test
    void gpusHeldForAWaitingGangAreShownToItsOwnerAndExplainedToOthers() throws Exception {
        HeldGang h = gangHeld(dir);
        server = h.server();
        TestApi api = h.api();
        String admin = h.admin(), alice = h.alice(), bob = h.bob();
        long gang = h.gang(), single = h.single();
        assertThat(api.state(bob, single)).as("the idle GPU is held for the gang").isEqualTo("pending");
        assertThat(api.job(alice, gang).get("reason").asText())
                .isEqualTo("waits for GPU(s) 0,1, held for it by policy tandem: expected free in 5 min; until then they take only work"
                        + " expected to be done by then (1 of 2 GPU(s) busy)");
        assertThat(api.job(bob, single).get("reason").asText())
                .isEqualTo("waits: idle GPU(s) 0,1 are held for job " + gang + " (2 GPUs), expected to start in 5 min; policy tandem lets only"
                        + " work expected to be done by then use them (1 of 2 GPU(s) busy)");
        String heldUntil = java.time.Instant.ofEpochMilli(h.t0() + 1_000_000).toString();
        for (JsonNode g : api.get("/gpus", alice).json().get("gpus")) {
            assertThat(g.get("held").asBoolean()).isTrue();
            assertThat(g.get("held_for").asLong()).isEqualTo(gang);
            assertThat(g.get("held_until").asText()).isEqualTo(heldUntil);
        }
        for (JsonNode g : api.get("/gpus", bob).json().get("gpus")) {
            assertThat(g.get("held").asBoolean()).isTrue();
            assertThat(g.get("held_for").isNull()).as("alice's job id is not bob's to see").isTrue();
        }
        assertThat(api.get("/dashboard", admin).json().get("gpus").get(1).get("held_for").asLong()).isEqualTo(gang);
        assertThat(api.get("/dashboard", bob).json().get("gpus").get(1).get("held_for").isNull()).isTrue();
        List<String> history = new ArrayList<>();
        for (JsonNode e : api.job(alice, gang).get("events")) history.add(e.get("reason").asText());
        assertThat(history).filteredOn(r -> r.startsWith("GPU(s) 0,1 held for it: ")).hasSize(1);

        // the hold is re-issued at each decision, noted once; the gang starts when the running job ends, then the single
        while (!api.state(alice, gang).equals("running")) {
            h.clock().moveTo(server.nextEventMillis());
            server.step();
        }
        assertThat(api.job(alice, gang).get("started_at").asText()).isEqualTo(heldUntil);
        assertThat(api.get("/gpus", admin).json().get("gpus")).allSatisfy(g -> assertThat(g.get("held").asBoolean()).isFalse());
        history.clear();
        for (JsonNode e : api.job(alice, gang).get("events")) history.add(e.get("reason").asText());
        assertThat(history).filteredOn(r -> r.contains("held for it")).hasSize(1);
        assertThat(api.state(bob, single)).isEqualTo("pending");
    }

    static String user(TestApi api, String admin, String name) {
        TestApi.Response r = api.post("/users", admin, TestApi.json(Map.of("name", name, "role", "user", "unix_user", System.getProperty("user.name"), "allow_root", true)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("token").asText();
    }

    static String gang(WorkloadSignature s, int gpus, long iterations) {
        return TestApi.json(Map.of("argv", List.of("train.py"), "iterations", iterations, "gpus", gpus,
                "signature", Map.of("model", s.model(), "dataset", s.dataset(), "batch_size", s.batchSize(), "amp", s.amp())));
    }

    /**
     * {@link #gangHeld} on a cluster simulated 60 times faster: the gang is held after 650 of the cluster's seconds (11 s
     * of the daemon's), as in {@code tandem simulate}; before the policy reasoned in the cluster's seconds, its thresholds
     * were the daemon's (a 600 s wait was 10 cluster hours) and the idle GPU went to bob's 10-hour job. What users read
     * stays in the daemon's time: the hold ends in 5 s, at 1,000 cluster seconds.
     */
    @Test
    void aTimeScaledDaemonAppliesThePolicysThresholdsInTheClustersSeconds() throws Exception {
        HeldGang h = gangHeld(dir, 60);
        server = h.server();
        TestApi api = h.api();
        assertThat(api.state(h.bob(), h.single())).as("the idle GPU is held for the gang").isEqualTo("pending");
        assertThat(api.job(h.alice(), h.gang()).get("reason").asText())
                .startsWith("waits for GPU(s) 0,1, held for it by policy tandem: expected free in 5 s;");
        for (JsonNode g : api.get("/gpus", h.alice()).json().get("gpus")) {
            assertThat(g.get("held_until").asText()).as("1,000 cluster seconds after t0")
                    .isEqualTo(java.time.Instant.ofEpochMilli(h.t0() + 16_667).toString());
        }
        h.clock().moveTo(h.t0() + 17_000);
        server.step();
        server.step();
        assertThat(api.state(h.bob(), h.running())).isEqualTo("succeeded");
        assertThat(api.state(h.alice(), h.gang())).isEqualTo("running");
    }

    @Test
    void aWorkloadTheDataDoesNotKnowIsRefusedOrFailsWithTheReasonAndBadSettingsAreRefused() throws Exception {
        server = TandemServer.start(config("1x2:RTX3090-24GB", 3600, "tandem"));
        TestApi api = new TestApi(server.url());
        String admin = Files.readString(server.adminTokenFile()).strip();
        WorkloadSignature unknown = new WorkloadSignature("MyOwnNet", "Private", 8, false);
        // submitted: refused at once, naming the field, and nothing is stored
        TestApi.Response refused = api.post("/jobs", admin, job(unknown, 100));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("error").asText())
                .startsWith("signature: the simulated executor has no measured profile of workload MyOwnNet/Private/bs8; submit with --model");
        assertThat(server.store().countByState().values().stream().mapToLong(Long::longValue).sum()).isZero();
        // a near miss (the dataset written without its hyphen) is shown the model's measured variants
        TestApi.Response near = api.post("/jobs", admin, job(new WorkloadSignature("resnet18", "CIFAR10", 64, false), 100));
        assertThat(near.status()).isEqualTo(400);
        assertThat(near.json().get("error").asText()).contains("e.g. [ResNet18/CIFAR-10/bs32, ResNet18/CIFAR-10/bs32/amp, ResNet18/CIFAR-10/bs64, ");
        // a job of such a workload the store already holds (submitted to a daemon with another executor) fails at its start
        long id = server.store().insertJob(new dev.tandem.server.store.NewJob("mine", List.of("train.py"), java.util.Map.of(), dir.toString(), 1, 0,
                100L, unknown, null, dev.tandem.server.store.JobControls.NONE), "admin", System.currentTimeMillis()).id();
        TestApi.await(LONG, "it to fail", () -> api.state(admin, id).equals("failed"));
        assertThat(api.job(admin, id).get("reason").asText()).contains("the simulated executor has no measured profile of workload MyOwnNet/Private/bs8")
                .endsWith("not tried again, as every attempt would fail alike; failed after 1 attempt(s)");

        assertThatThrownBy(() -> new SimulatedSettings("1x2:RTX3090-24GB", 0)).hasMessage("--time-scale must be within (0, 1000000], got 0.0");
        assertThatThrownBy(() -> new SimulatedSettings("two GPUs", 60)).hasMessageContaining("is not NODESxGPUS:TYPE-MEM");
    }
}
