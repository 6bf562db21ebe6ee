package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.core.model.Job;
import dev.tandem.server.ServerConfig;
import dev.tandem.server.TandemServer;
import dev.tandem.server.exec.Sharing;
import dev.tandem.server.exec.ToolPath;
import dev.tandem.server.exec.simulated.SimulatedExecutor;
import dev.tandem.server.exec.simulated.SimulatedSettings;
import dev.tandem.server.sched.SchedulerConfig;
import dev.tandem.server.sched.VirtualClock;
import dev.tandem.server.store.JobState;
import dev.tandem.server.testing.TestApi;
import dev.tandem.sim.engine.JobRecord;
import dev.tandem.sim.engine.Knowledge;
import dev.tandem.sim.engine.ProgressListener;
import dev.tandem.sim.engine.Recording;
import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.scenario.Scenario;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same jobs through {@code tandem simulate} and through the whole daemon: submitted over its HTTP API, stored,
 * scheduled by its loop, run by the simulated executor, with the daemon's clock moved from event to event as the
 * simulator's is ({@link TandemServer#startInVirtualTime}). Both worlds must take the same decisions: every job starts
 * and ends at the same time and shares its GPU with the same partners. One API user submits every job, unless the
 * workload has {@code --fair-share}: then each job's own user (the generator's four) submits it with its own token, and
 * the simulator applies the daemon's queue rules ({@link dev.tandem.core.runtime.Admission}: fair share between users,
 * a GPU limit per user with {@code --max-gpus-per-user}).
 */
class DaemonFidelityTest {
    /** Where the daemon's virtual clock starts: any instant; the simulator's t=0. */
    static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    @TempDir Path dir;
    /** What the daemon did, as {@link #acts(SimulationResult)} lists the simulator's. */
    private List<String> daemonActs = List.of();
    /** The policy decisions the daemon refused, as its job histories note them. */
    private final List<String> refusals = new ArrayList<>();
    private final List<String> daemonHolds = new ArrayList<>();

    /** The README's demo: 200 one-GPU jobs at t=0 on 8 RTX 3090s, with the simulator's defaults. */
    static final String DEMO = "--jobs 200 --sizes 1";
    /**
     * Arrivals over time (4 per hour), gangs of 2 and 4 GPUs, preemptions, migrations and splits on the same 8 GPUs; the
     * oracle does not learn online. With learning the packing peers part where a choice is closer than what the daemon
     * can measure: it measures a speed from the whole iterations a job reports (about 0.2% off over 60 s), the
     * simulator knows it exactly, and the corrected predictions then rank nearly equal hosts differently (fifo-packed
     * from t=18,551 s on this workload, gavel-packed from t=7,573 s on the demo); tandem agrees with learning on
     * ({@link #ARRIVALS_LEARNING}).
     */
    static final String ARRIVALS = "--jobs 200 --sizes 1:0.7,2:0.2,4:0.1 --arrival poisson:4 --no-online";
    /** {@link #ARRIVALS} with the oracle learning online from observed speeds, as {@code tandem simulate} does by default. */
    static final String ARRIVALS_LEARNING = "--jobs 200 --sizes 1:0.7,2:0.2,4:0.1 --arrival poisson:4";
    /**
     * {@link #ARRIVALS} submitted by four users, each at most 4 GPUs at once: jobs wait for their own user's GPUs, and
     * the serving order moves with what each user holds.
     */
    static final String FAIR_SHARE = ARRIVALS + " --fair-share --max-gpus-per-user 4";
    /**
     * One arrival a minute on 33 one-GPU nodes: more nodes than tandem's look for room covers, so tandem decides at most
     * once a minute ({@code Policy.decisionPeriodSeconds}), and both worlds put off the decisions that come sooner.
     */
    static final String LARGE = "--jobs 200 --sizes 1 --arrival poisson:60 --cluster 33x1:RTX3090-24GB --no-online";
    /**
     * {@link #ARRIVALS_LEARNING} where a resumed job first repeats 120 s of work (the default is 30 s), more than a job
     * suspended early had done: the daemon measures such a job's speed from the iterations it reports, as the simulator
     * observes it.
     */
    static final String LONG_RESUMES = ARRIVALS_LEARNING + " --restart-overhead 120";
    /**
     * {@link #ARRIVALS} with no job's length known: the daemon's jobs are submitted without one. Both worlds show such a
     * job as needing as long as it has run ({@code SchedulerSnapshot.unknownLengthIterations}), a number that grows while
     * it runs: the rankings kept across rounds key such jobs again at every decision, where the running journals name
     * them ({@code RunningJournal.reshown}). Not srtf: it then ranks by least attained service alone and suspends jobs at
     * every round, which keeps their services within milliseconds of each other, and the daemon's clock counts
     * milliseconds where the simulator's does not (this workload agrees for 7,544 decisions, then one near-tie ranks
     * two jobs the other way round; with services counted in whole seconds it agreed for 10,775).
     */
    static final String NO_LENGTHS = ARRIVALS + " --knowledge none";
    /**
     * {@link #ARRIVALS} with each job's length declared through a log-normal error (sigma 1): the daemon's jobs are
     * submitted with that length ({@code --iterations}) and run their true one. A job that outruns its declaration is of
     * unknown length from then on in both worlds, and once completed jobs show the declarations far off, tandem takes
     * every job as one of unknown length ({@code LengthEstimates}), in both worlds. Not with online learning: with the
     * lengths distrusted, many jobs have had the same service, and tandem's matching chooses among pairs that rank
     * nearly alike by predictions corrected from speeds the daemon measures about 0.2% off ({@link #ARRIVALS}): the
     * demo parts at decision 303, this workload at 215; without learning the demo agrees too.
     */
    static final String NOISY_LENGTHS = ARRIVALS + " --knowledge noisy:1";
    /**
     * Two nodes of four GPUs and more gangs, each job's GPUs on one node in both worlds (the daemon's executors start a job
     * on one node; the simulator keeps them there with {@code --gangs-on-one-node}).
     */
    static final String TWO_NODES = "--jobs 200 --sizes 1:0.5,2:0.3,4:0.2 --arrival poisson:4 --no-online --cluster 2x4:RTX3090-24GB --gangs-on-one-node";

    /**
     * gavel-packed re-packs at each of its rounds' ends (both worlds ask it there, to the millisecond): one decision
     * suspends a job and moves another onto the GPU it leaves, or suspends a guest whose partner's GPU is not free to
     * join yet and, once later steps have freed it, starts the guest there. The daemon promises such GPUs to the moved or restarted job until the runs stopped there have left (it
     * refused the moves before, "GPU 3 already runs 2 jobs", and dropped the restarts), so it is checked on both
     * workloads; no world may refuse a decision.
     */
    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource(delimiter = '|', value = {DEMO + "|fifo", DEMO + "|tandem", ARRIVALS + "|fifo", ARRIVALS + "|sjf", ARRIVALS + "|srtf",
            ARRIVALS + "|tiresias", ARRIVALS + "|fifo-packed", ARRIVALS + "|lucid", ARRIVALS + "|gandiva", ARRIVALS + "|tandem",
            ARRIVALS + "|gavel-packed", DEMO + " --no-online|gavel-packed", ARRIVALS_LEARNING + "|tandem", FAIR_SHARE + "|fifo",
            FAIR_SHARE + "|fifo-packed", FAIR_SHARE + "|tiresias", FAIR_SHARE + "|tandem", DEMO + " --fair-share|fifo", LARGE + "|tandem",
            TWO_NODES + "|fifo-packed", TWO_NODES + "|tiresias", TWO_NODES + "|gavel-packed", TWO_NODES + "|tandem", LONG_RESUMES + "|tandem",
            NO_LENGTHS + "|sjf", NO_LENGTHS + "|tiresias", NO_LENGTHS + "|gandiva", NO_LENGTHS + "|tandem",
            NOISY_LENGTHS + "|sjf", NOISY_LENGTHS + "|srtf", NOISY_LENGTHS + "|tiresias", NOISY_LENGTHS + "|tandem",
            TWO_NODES + " --knowledge none|tandem"})
    void theDaemonInVirtualTimeTakesTheSimulatorsDecisions(String workload, String policy) throws Exception {
        List<String> args = new ArrayList<>(List.of(workload.split(" ")));
        args.addAll(List.of("--policy", policy));
        SimulateCommand simulate = CommandLine.populateCommand(new SimulateCommand(), args.toArray(String[]::new));
        Scenario scenario = Scenario.load(simulate.scenario.spec(simulate.cluster, simulate.jobs, simulate.arrival, simulate.seed));
        List<Job> jobs = asSubmitted(scenario.jobs());
        SimulationResult simulated = scenario.run(jobs, policy, ProgressListener.NONE, Recording.DEFAULT.withDecisions(Integer.MAX_VALUE));
        List<String> simulatedActs = acts(simulated);

        // the simulator's cluster ("1x8:RTX3090-24GB" unless the workload names one), which the simulated executor parses too
        int named = args.indexOf("--cluster");
        String cluster = named < 0 ? "1x8:RTX3090-24GB" : args.get(named + 1);
        Map<String, Outcome> daemon = throughTheDaemon(scenario, cluster, jobs, policy, simulate.scenario.fairShare, simulate.scenario.maxGpusPerUser);

        Map<String, Outcome> sim = new LinkedHashMap<>();
        for (JobRecord r : simulated.jobs()) sim.put(r.id(), new Outcome(r.firstStart(), r.finish(), new TreeSet<>(r.partners())));
        List<String> differences = new ArrayList<>();
        double makespanSim = 0, makespanDaemon = 0, largestGap = 0;
        List<Map.Entry<String, Outcome>> byStart = new ArrayList<>(sim.entrySet());
        byStart.sort(Comparator.comparingDouble(e -> e.getValue().start()));
        for (var e : byStart) {
            Outcome s = e.getValue(), d = daemon.get(e.getKey());
            makespanSim = Math.max(makespanSim, s.end());
            makespanDaemon = Math.max(makespanDaemon, d.end());
            largestGap = Math.max(largestGap, Math.max(Math.abs(s.start() - d.start()), Math.abs(s.end() - d.end())));
            if (timesDiffer(s.start(), s.end(), d) || !s.partners().equals(d.partners())) {
                differences.add(String.format(Locale.ROOT, "job %s: simulate %.0f-%.0f s with %s, daemon %.0f-%.0f s with %s",
                        e.getKey(), s.start(), s.end(), s.partners(), d.start(), d.end(), d.partners()));
            }
        }
        System.out.printf(Locale.ROOT, "%s, %s: makespan simulate %.1f h, daemon %.1f h; %d of %d jobs differ; largest start or end gap %.3f s;"
                        + " holds begun: simulate %d, daemon %d%n", workload, policy, makespanSim / 3600, makespanDaemon / 3600, differences.size(),
                sim.size(), largestGap, holds(simulated).size(), daemonHolds.size());
        String firstDifference = firstDifference(simulatedActs, daemonActs);
        assertThat(refusals).as("decisions the daemon refused").isEmpty();
        assertThat(differences).as(firstDifference).isEmpty();
        assertThat(makespanDaemon).isCloseTo(makespanSim, org.assertj.core.data.Percentage.withPercentage(0.5));
        assertThat(daemon.values().stream().filter(o -> !o.partners().isEmpty()).count())
                .isEqualTo(sim.values().stream().filter(o -> !o.partners().isEmpty()).count());
        // GPUs held for waiting gangs (Decision.Reserve): the same holds begin at the same times in both worlds (to the
        // second: both round to it, and the daemon's clock counts milliseconds)
        List<String> simulatedHolds = holds(simulated);
        assertThat(withinASecond(daemonHolds, simulatedHolds)).as("holds begun, daemon %s against simulator %s", daemonHolds, simulatedHolds).isTrue();
        if (policy.equals("tandem") && !workload.startsWith(DEMO)) assertThat(daemonHolds).as("tandem holds GPUs for gangs here").isNotEmpty();
    }

    /** Whether two sorted lists of acts ({@link #act}) name the same acts of the same jobs in turn, each pair at most a second apart. */
    private static boolean withinASecond(List<String> a, List<String> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) {
            String[] x = a.get(i).split(" ", 2), y = b.get(i).split(" ", 2);
            if (!x[1].equals(y[1]) || Math.abs(Long.parseLong(x[0]) - Long.parseLong(y[0])) > 1) return false;
        }
        return true;
    }

    /** Each hold the simulator recorded as begun: its time in seconds and its job. */
    private static List<String> holds(SimulationResult r) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile("t=(\\d+) reserve (\\S+):");
        List<String> out = new ArrayList<>();
        for (String d : r.decisions()) {
            var m = p.matcher(d);
            if (m.find()) out.add(act(Long.parseLong(m.group(1)), m.group(2), "hold"));
        }
        java.util.Collections.sort(out);
        return out;
    }

    record Outcome(double start, double end, Set<String> partners) {}

    /**
     * Whether the daemon started or ended a job at another time than the simulator: a start more than a second apart (the
     * daemon's clock counts milliseconds), an end more than 0.1% and a second apart (it measures speeds from whole
     * reported iterations).
     */
    private static boolean timesDiffer(double simStart, double simEnd, Outcome daemon) {
        return Math.abs(simStart - daemon.start()) > 1 || Math.abs(simEnd - daemon.end()) > 0.001 * simEnd + 1;
    }

    /**
     * The jobs as the API carries them, for both worlds: whole iterations ({@code tandem submit --iterations N}) and
     * arrivals on the daemon's millisecond clock. With the generator's fractional lengths the daemon's jobs were up to
     * half an iteration shorter or longer (tens of milliseconds), enough to swap two events a few seconds apart after
     * hundreds of gavel-packed's moves.
     */
    static List<Job> asSubmitted(List<Job> jobs) {
        List<Job> out = new ArrayList<>(jobs.size());
        for (Job j : jobs) {
            out.add(new Job(j.id(), j.user(), Math.round(j.submitTime() * 1000) / 1000.0, j.gpus(), j.signature(),
                    Math.max(1, Math.round(j.totalIterations())), j.memoryMiB(), j.priority()));
        }
        return out;
    }

    /** Runs the jobs through a daemon in virtual time; each job's first start, end and partners, by the simulator's id. */
    private Map<String, Outcome> throughTheDaemon(Scenario scenario, String cluster, List<Job> submitted, String policy, boolean byOwnUsers, int maxGpusPerUser)
            throws Exception {
        SchedulerConfig sched = new SchedulerConfig(100, secondsToMs(scenario.spec().sim().roundSeconds()), 60_000,
                secondsToMs(scenario.spec().sim().observeAfterSeconds()), 3, scenario.spec().sim().memoryRule().perJobMarginMiB(),
                scenario.spec().tandem(), scenario.spec().model(), maxGpusPerUser, "bundled", scenario.spec().online());
        ServerConfig cfg = new ServerConfig(dir.resolve("state"), "127.0.0.1", 0, null, policy, Sharing.TIME_SLICING, 50, sched, 2000,
                64 * 1024, false, new ToolPath(dir.toString()), "simulated", null,
                new SimulatedSettings(cluster, 1, scenario.spec().sim().oomDetectSeconds(), scenario.spec().sim().restartOverheadSeconds()));
        List<Job> jobs = new ArrayList<>(submitted);
        jobs.sort(Comparator.comparingDouble(Job::submitTime)); // stable: the workload's order among equal times
        Knowledge knowledge = scenario.spec().sim().knowledge();
        long seed = scenario.spec().sim().seed();
        // the daemon starts when the first job comes, as the simulator's clock does (its rounds count from there)
        VirtualClock clock = new VirtualClock(arrival(jobs.getFirst()));
        Map<Long, String> simId = new LinkedHashMap<>();
        try (TandemServer server = TandemServer.startInVirtualTime(cfg, clock)) {
            TestApi api = new TestApi(server.url());
            String token = Files.readString(server.adminTokenFile()).strip();
            Map<String, String> tokens = new LinkedHashMap<>();
            if (byOwnUsers) {
                for (Job j : jobs) tokens.computeIfAbsent(j.user(), user -> userToken(api, token, user));
                assertThat(tokens).as("users submitting").hasSizeGreaterThan(1);
            }
            int next = 0, steps = 0;
            while (true) {
                long now = clock.millis();
                for (; next < jobs.size() && arrival(jobs.get(next)) <= now; next++) {
                    Job j = jobs.get(next);
                    simId.put(api.submit(byOwnUsers ? tokens.get(j.user()) : token, request(j, knowledge, seed)), j.id());
                }
                do {
                    server.step();
                    if (++steps > 1_000_000) throw new AssertionError("the daemon does not settle at t=" + (now - T0) + " ms");
                } while (server.nextEventMillis() <= now);
                if (next == jobs.size() && unfinished(server) == 0) break;
                long at = Math.min(next < jobs.size() ? arrival(jobs.get(next)) : Long.MAX_VALUE, server.nextEventMillis());
                clock.moveTo(at);
            }
            daemonActs = acts(api, token, simId);
            java.util.Collections.sort(daemonHolds);
            // what an operator reads back: tandem history
            Map<String, Outcome> out = new LinkedHashMap<>();
            for (JsonNode j : api.get("/history?limit=100000", token).json().get("jobs")) {
                String id = simId.get(j.get("id").asLong());
                assertThat(j.get("state").asText()).as("job %s", id).isEqualTo("succeeded");
                Set<String> partners = new TreeSet<>();
                for (JsonNode p : j.get("shared_with")) partners.add(simId.get(p.asLong()));
                out.put(id, new Outcome(seconds(j.get("first_started_at")), seconds(j.get("finished_at")), partners));
            }
            assertThat(out).hasSize(jobs.size());
            return out;
        }
    }

    /** Creates an API user (run as this test's own Unix account); its token. */
    private static String userToken(TestApi api, String admin, String name) {
        TestApi.Response r = api.post("/users", admin, TestApi.json(Map.of("name", name, "unix_user", System.getProperty("user.name"), "allow_root", true)));
        if (r.status() != 201) throw new AssertionError("creating user " + name + ": " + r.body());
        return r.json().get("token").asText();
    }

    /** Starts and stops (preemptions, migrations, out-of-memory crashes) of the simulator: "SECONDS JOB start|stop", sorted. */
    private static List<String> acts(SimulationResult r) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile("t=(\\d+) (start|preempt|migrate|oom) (\\S+):");
        List<String> out = new ArrayList<>();
        for (String d : r.decisions()) {
            var m = p.matcher(d);
            if (!m.find()) continue;
            var paired = PAIRED.matcher(d);
            String what = !m.group(2).equals("start") ? "stop" : paired.find() ? "start with " + paired.group(2) : "start";
            out.add(act(Long.parseLong(m.group(1)), m.group(3), what));
            if (m.group(2).equals("migrate")) out.add(act(Long.parseLong(m.group(1)), m.group(3), "start")); // the daemon stops, then starts it there
        }
        java.util.Collections.sort(out);
        return out;
    }

    /** The same from the daemon's job histories: a start leaves the queue for a GPU, a stop suspends or crashes a run. */
    private List<String> acts(TestApi api, String token, Map<Long, String> simId) {
        List<String> out = new ArrayList<>();
        for (var e : simId.entrySet()) {
            for (JsonNode ev : api.job(token, e.getKey()).get("events")) {
                String from = ev.get("from").asText(), to = ev.get("to").asText(), why = ev.get("reason").asText();
                if (why.startsWith("decision refused")) refusals.add(e.getValue() + ": " + why);
                if (why.startsWith("GPU(s) ") && why.contains(" held for it: ")) daemonHolds.add(act(Math.round(seconds(ev.get("at"))), e.getValue(), "hold"));
                boolean start = Set.of("running", "paired", "profiling").contains(to) && Set.of("pending", "suspended").contains(from);
                // a note (a hold, a refusal) on a job that waits suspended leaves it in its state: no stop
                boolean stop = to.equals("suspended") && !from.equals(to) || why.startsWith("CUDA out of memory");
                var paired = PAIRED.matcher(why);
                String what = stop ? "stop" : paired.find() ? "start with " + simId.get(Long.parseLong(paired.group(2))) : "start";
                if (start || stop) out.add(act(Math.round(seconds(ev.get("at"))), e.getValue(), what));
            }
        }
        java.util.Collections.sort(out);
        return out;
    }

    /** How a policy names the host a job joins, in its decision's reason. */
    private static final java.util.regex.Pattern PAIRED = java.util.regex.Pattern.compile("paired (\\S+) with (\\S+?):");

    private static String act(long seconds, String job, String what) { return String.format(Locale.ROOT, "%09d %s %s", seconds, job, what); }

    /** Where the two worlds' decisions first part (times rounded to seconds, so a difference of 1 s may be rounding). */
    private static String firstDifference(List<String> sim, List<String> daemon) {
        for (int i = 0; i < Math.min(sim.size(), daemon.size()); i++) {
            if (!sim.get(i).equals(daemon.get(i))) {
                return "decisions part at #" + i + ": simulate " + sim.subList(i, Math.min(sim.size(), i + 6)) + ", daemon " + daemon.subList(i, Math.min(daemon.size(), i + 6));
            }
        }
        return sim.size() == daemon.size() ? "same decisions" : "decisions: simulate " + sim.size() + ", daemon " + daemon.size();
    }

    private static long unfinished(TandemServer server) {
        long n = 0;
        for (var e : server.store().countByState().entrySet()) if (!e.getKey().terminal()) n += e.getValue();
        return n;
    }

    private static long arrival(Job j) { return T0 + Math.round(j.submitTime() * 1000); }

    private static long secondsToMs(double s) { return Math.round(s * 1000); }

    private static double seconds(JsonNode isoInstant) { return (Instant.parse(isoInstant.asText()).toEpochMilli() - T0) / 1000.0; }

    /**
     * A job as its owner submits it ({@code tandem submit --model M --dataset D --batch-size B --iterations N --memory M}):
     * with its length; where the simulator's policies are shown a wrong one ({@code --knowledge noisy}), with that
     * one, and where they are not told lengths ({@code --knowledge none}), without one. Where it does not declare its
     * true length, that is set for the simulated GPUs alone ({@link SimulatedExecutor#LENGTH_VARIABLE}).
     */
    private static String request(Job j, Knowledge knowledge, long seed) {
        Map<String, Object> r = new LinkedHashMap<>(Map.of("name", "sim-" + j.id(), "argv", List.of("train.py"), "gpus", j.gpus(),
                "memory_mib", j.memoryMiB(), "signature", Map.of("model", j.signature().model(), "dataset", j.signature().dataset(),
                        "batch_size", j.signature().batchSize(), "amp", j.signature().amp())));
        long total = Math.round(j.totalIterations());
        double declared = knowledge.declaredIterations(j.id(), total, seed);
        if (!Double.isNaN(declared)) r.put("iterations", Math.max(1, Math.round(declared)));
        if (knowledge.kind() != Knowledge.Kind.EXACT) r.put("env", Map.of(SimulatedExecutor.LENGTH_VARIABLE, String.valueOf(total)));
        return TestApi.json(r);
    }
}
