package dev.tandem.cli;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.Policy;
import dev.tandem.core.policy.SchedulerSnapshot;
import dev.tandem.data.DataSource;
import dev.tandem.data.LucidPairReader;
import dev.tandem.data.ProfileReader;
import dev.tandem.data.truth.ContentionFallback;
import dev.tandem.data.truth.MeasuredTruth;
import dev.tandem.server.metrics.ServerMetrics;
import dev.tandem.server.store.JobEvent;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.Store;
import dev.tandem.server.testing.AfterJobOneStarts;
import dev.tandem.server.testing.ScriptedLoop;
import dev.tandem.server.testing.TestApi;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.engine.SimulationException;
import dev.tandem.sim.engine.Simulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.tandem.server.testing.ScriptedLoop.sleeping;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decision gets the same verdict in both worlds (core.runtime.DecisionRules), and its steps end where they end in
 * the simulator: scripted policies on two GPUs, run through the simulator and through the daemon (local executor on a
 * fake GPU host). The simulator fails the run on a refused step, naming why; the daemon skips the step, counts it and
 * notes why in the job's history.
 */
class SameVerdictTest {
    static final WorkloadSignature RESNET = new WorkloadSignature("ResNet18", "CIFAR-10", 32, false);
    static final List<JobProfile> PROFILES = ProfileReader.read(DataSource.LUCID_PROFILES, 0);

    static final Decision FIRST = new Decision.Start("1", List.of(0), "first");
    /** Each mistake and the reason both worlds give. */
    static final Map<Decision, String> MISTAKES = new LinkedHashMap<>();

    static {
        MISTAKES.put(new Decision.Start("1", List.of(1), "again"), "job 1 is running: only a waiting job is started");
        MISTAKES.put(new Decision.Preempt("2", "not running"), "job 2 is waiting: only a running job is suspended or moved");
        MISTAKES.put(new Decision.Start("3", List.of(0, 1), "onto job 1"), "a gang shares only with a gang on the same GPUs (job 1 runs on [0])");
        MISTAKES.put(new Decision.Reserve("3", List.of(1), 60, "too few"), "needs 2 GPU(s), decision gives 1");
        MISTAKES.put(new Decision.Start("2", List.of(7), "nowhere"), "GPU 7 does not exist");
        MISTAKES.put(new Decision.Migrate("2", List.of(1), "not running"), "job 2 is waiting: only a running job is suspended or moved");
        MISTAKES.put(new Decision.Reserve("1", List.of(0), 60, "running"), "job 1 is not waiting: GPUs are held only for a job in the queue");
    }

    @TempDir Path dir;

    /** Starts job 1, then makes {@code mistakes}, at its first decision only. */
    record Scripted(List<Decision> mistakes, AtomicBoolean decided) implements Policy {
        Scripted(List<Decision> mistakes) { this(mistakes, new AtomicBoolean()); }

        @Override public String name() { return "scripted"; }

        @Override public List<Decision> decide(SchedulerSnapshot s) {
            if (decided.getAndSet(true)) return List.of();
            List<Decision> out = new ArrayList<>(List.of(FIRST));
            out.addAll(mistakes);
            return out;
        }
    }

    /** Jobs 1 and 2 need one GPU, job 3 two; the policy starts job 1 on GPU 0, then makes seven mistakes in the same decision. */
    @Test
    void theSimulatorAndTheDaemonRefuseTheSameDecisionsForTheSameReasons() throws Exception {
        List<Job> jobs = List.of(simulated("1", 1), simulated("2", 1), simulated("3", 2));
        for (var m : MISTAKES.entrySet()) {
            assertThat(simulatorRefusal(new Scripted(List.of(m.getKey())), jobs, 0)).as(m.getKey().toString()).isEqualTo(m.getValue());
        }
        ServerMetrics metrics = new ServerMetrics();
        try (ScriptedLoop daemon = ScriptedLoop.start(dir, new Scripted(List.copyOf(MISTAKES.keySet())), metrics, 1000, PROFILES,
                List.of(sleeping(1, 1, RESNET), sleeping(1, 1, RESNET), sleeping(2, 1, RESNET)))) {
            Store store = daemon.store();
            // noted in the decision's order while the test reads: job 3's two notes come before jobs 2's and 1's last, so wait for all
            Set<String> expected = new TreeSet<>(MISTAKES.values());
            try {
                TestApi.await(Duration.ofSeconds(20), "every refusal to be noted", () -> noted(daemon).equals(expected));
            } catch (AssertionError timedOut) {
                // below, the difference
            }
            assertThat(noted(daemon)).isEqualTo(expected);
            // every refused step counted (the history notes a reason once per job), and job 1 started as decided
            assertThat(metrics.scrape()).contains("tandem_decisions_rejected_total " + MISTAKES.size() + ".0");
            assertThat(store.job(1).orElseThrow().gpuIds()).containsExactly(0);
            // its run ends by itself, and the daemon cleans up after it (a run stopped at shutdown would leave its cgroup)
            TestApi.await(Duration.ofSeconds(20), "job 1 to succeed", () -> store.job(1).orElseThrow().state() == JobState.SUCCEEDED);
        }
    }

    /** Why the daemon refused steps, as the histories of jobs 1 to 3 note it so far. */
    private static Set<String> noted(ScriptedLoop daemon) {
        Set<String> noted = new TreeSet<>();
        for (long id = 1; id <= 3; id++) for (JobEvent e : daemon.refusals(id)) noted.add(ScriptedLoop.why(e));
        return noted;
    }

    /**
     * Steps about a job an earlier step of the same decision moved: starts job 1 on GPU 0, and job 2 on GPU 1 but then
     * suspends it; once job 1 runs, moves it to GPU 1 and suspends it, and starts job 2 on GPU 1; once job 1 waits,
     * suspends job 2, starts job 1 on GPU 1 (which job 2's run still holds live), suspends it and starts it on GPU 0;
     * once job 2 waits, suspends job 1, starts job 2 on GPU 0 (held live by job 1's run) and moves it to GPU 1; once job 1
     * waits, starts it on GPU 0. It acts on running jobs, so that it is asked while jobs run.
     */
    static final class MovedThenSuspended implements Policy {
        final List<String> decided = new ArrayList<>();

        @Override public String name() { return "moved-then-suspended"; }

        @Override public boolean actsOnRunningJobs() { return true; }

        @Override public List<Decision> decide(SchedulerSnapshot s) {
            boolean bothWait = s.queue().size() == 2, oneRuns = s.running().stream().anyMatch(r -> r.job().id().equals("1"));
            boolean oneWaits = s.queue().stream().anyMatch(p -> p.id().equals("1"));
            List<Decision> out = switch (decided.size()) {
                case 0 -> bothWait ? List.of(new Decision.Start("1", List.of(0), "first"), new Decision.Start("2", List.of(1), "first"),
                        new Decision.Preempt("2", "not yet")) : List.of();
                case 1 -> oneRuns ? List.of(new Decision.Migrate("1", List.of(1), "over"), new Decision.Preempt("1", "off"),
                        new Decision.Start("2", List.of(1), "now")) : List.of();
                case 2 -> oneWaits && s.running().size() == 1 ? List.of(new Decision.Preempt("2", "make room"), new Decision.Start("1", List.of(1), "there"),
                        new Decision.Preempt("1", "not there"), new Decision.Start("1", List.of(0), "back")) : List.of();
                case 3 -> !oneWaits && s.queue().size() == 1 && s.running().size() == 1 ? List.of(new Decision.Preempt("1", "make room"),
                        new Decision.Start("2", List.of(0), "there"), new Decision.Migrate("2", List.of(1), "not there")) : List.of();
                case 4 -> oneWaits && s.running().size() == 1 ? List.of(new Decision.Start("1", List.of(0), "again")) : List.of();
                default -> List.of();
            };
            if (!out.isEmpty()) decided.add(out.toString());
            return out;
        }
    }

    @Test
    void laterStepsAboutAJobAnEarlierStepMovedEndAlikeInBothWorlds() throws Exception {
        // the simulator carries out each step at once; the daemon's runs start and stop while later steps are checked, and
        // the rules (not the runs' states) say where a job is for each: both worlds end each step where the simulator does
        MovedThenSuspended simulated = new MovedThenSuspended();
        var result = simulator(60).run(List.of(simulated("1", 1), simulated("2", 1)), simulated, null);
        assertThat(simulated.decided).hasSize(5);
        assertThat(result.decisions()).extracting(d -> d.substring(d.indexOf(' ') + 1, d.indexOf(':')))
                .containsExactly("start 1", "start 2", "preempt 2", "migrate 1", "preempt 1", "start 2", "preempt 2", "start 1", "preempt 1", "start 1",
                        "preempt 1", "start 2", "migrate 2", "start 1");

        MovedThenSuspended live = new MovedThenSuspended();
        try (ScriptedLoop daemon = ScriptedLoop.start(dir, live, new ServerMetrics(), 300, PROFILES, List.of(sleeping(1, 2, RESNET), sleeping(1, 4, RESNET)))) {
            Store store = daemon.store();
            TestApi.await(Duration.ofSeconds(30), "both jobs to succeed",
                    () -> store.job(1).orElseThrow().state() == JobState.SUCCEEDED && store.job(2).orElseThrow().state() == JobState.SUCCEEDED);
            assertThat(live.decided).hasSize(5);
            var job = store.job(1).orElseThrow();
            assertThat(job.attempts()).as("started three times, each on GPU 0").isEqualTo(3);
            assertThat(job.gpuIds()).containsExactly(0);
            assertThat(store.events(1)).extracting(JobEvent::reason).noneMatch(r -> r.startsWith("migrated to") || r.startsWith("decision refused"))
                    .contains("suspended instead of moved: off");
            var second = store.job(2).orElseThrow();
            assertThat(second.attempts()).as("started and suspended at once, started, suspended, started").isEqualTo(3);
            assertThat(store.events(2)).extracting(JobEvent::reason).contains("not there");
            assertThat(second.gpuIds()).containsExactly(1);
            assertThat(store.events(2)).extracting(JobEvent::reason).contains("preempted: not yet");
        }
    }

    @Test
    void aJobPromisedAGpuIsOnItForTheSameDecisionsLaterSteps() throws Exception {
        // job 1 starts on GPU 0; once it runs, it is suspended and jobs 2, 3 and 4 start on GPU 0, which job 1's run still
        // holds live: jobs 2 and 3 are promised it, and job 4 would be a third job there
        String simulated = simulatorRefusal(thirdOnAGpuBeingFreed(), List.of(simulated("1", 1), simulated("2", 1), simulated("3", 1), simulated("4", 1)), 60);
        assertThat(simulated).isEqualTo("GPU 0 already runs 2 jobs");

        try (ScriptedLoop daemon = ScriptedLoop.start(dir, thirdOnAGpuBeingFreed(), new ServerMetrics(), 300, PROFILES,
                List.of(sleeping(1, 2, RESNET), sleeping(1, 2, RESNET), sleeping(1, 2, RESNET), sleeping(1, 2, RESNET)))) {
            Store store = daemon.store();
            TestApi.await(Duration.ofSeconds(20), "the third job on GPU 0 to be refused", () -> !daemon.refusals(4).isEmpty());
            assertThat(daemon.refusals(4)).extracting(ScriptedLoop::why).containsExactly(simulated);
            // jobs 2 and 3 start together once job 1's run has left (and end by themselves, leaving nothing behind)
            TestApi.await(Duration.ofSeconds(20), "jobs 2 and 3 to succeed", () -> store.job(2).orElseThrow().state() == JobState.SUCCEEDED
                    && store.job(3).orElseThrow().state() == JobState.SUCCEEDED);
            assertThat(store.job(3).orElseThrow().gpuIds()).containsExactly(0);
            // refused by the decision that suspended job 1, as in the simulator, not once the promises were kept
            assertThat(daemon.refusals(4).getFirst().at()).isEqualTo(daemon.notedAt(1, "preempted: make room"));
        }
    }

    /** A job of {@code gpus} GPUs for the simulator, long enough to run across the scripted decisions. */
    private static Job simulated(String id, int gpus) {
        return new Job(id, "u", 0, gpus, RESNET, 1e7, 1000, 0);
    }

    /** The simulator on two GPUs, with a scheduling point every {@code roundSeconds} (0: only on events). */
    private static Simulator simulator(double roundSeconds) {
        Cluster two = Cluster.homogeneous(1, 2, new GpuType("H100", 81_559), 8, 1 << 20);
        MeasuredTruth truth = new MeasuredTruth("lucid", LucidPairReader.read(DataSource.LUCID_PAIRS, true), ContentionFallback.standard());
        return new Simulator(new SimConfig(roundSeconds, 60, 30, 0, new MemoryRule(0)), two, new ProfileStore(PROFILES), truth);
    }

    /** Why the simulator refuses a step of the policy's, as its error names it. */
    private static AfterJobOneStarts thirdOnAGpuBeingFreed() {
        return new AfterJobOneStarts(List.of(new Decision.Preempt("1", "make room"), new Decision.Start("2", List.of(0), "there"),
                new Decision.Start("3", List.of(0), "beside"), new Decision.Start("4", List.of(0), "a third")));
    }

    private static String simulatorRefusal(Policy policy, List<Job> jobs, double roundSeconds) {
        try {
            simulator(roundSeconds).run(jobs, policy, null);
        } catch (SimulationException e) {
            return e.getMessage().substring(e.getMessage().indexOf("): ") + 3);
        }
        throw new AssertionError("the simulator accepted every step of " + policy.name());
    }
}
