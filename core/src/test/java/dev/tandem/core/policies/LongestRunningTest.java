package dev.tandem.core.policies;

import dev.tandem.core.compat.MemoryRule;
import dev.tandem.core.compat.UtilSumModel;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Job;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.RunningJob;
import dev.tandem.core.policy.RunningJournal;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The running job with the most left, kept across rounds from the world's journal, against a look at every running
 * job: the same answer at every round of a random world in which jobs start, stop, run down and outrun their length.
 */
class LongestRunningTest {
    static final WorkloadSignature SIG = new WorkloadSignature("M", "d", 32, false);
    static final ProfileStore PROFILES = new ProfileStore(List.of(JobProfile.basic(SIG, 2.0, 50, 20, 1000)));
    static final Cluster CLUSTER = Cluster.homogeneous(8, 8, new GpuType("T", 24_576), 8, 1 << 16);

    /** A running job as the world has it: iterations left, whether its length is known, its GPU. */
    static final class Running {
        final Job job;
        final int gpu;
        double left;
        boolean known = true;

        Running(Job job, int gpu, double left) {
            this.job = job;
            this.gpu = gpu;
            this.left = left;
        }
    }

    static SchedulerSnapshot snapshot(double now, Map<String, Running> running, RunningJournal journal) {
        List<RunningJob> views = new ArrayList<>();
        for (Running r : running.values()) views.add(new RunningJob(r.job, List.of(r.gpu), 0, 0, r.left, 0, Double.NaN, r.known));
        SchedulerSnapshot s = new SchedulerSnapshot(now, CLUSTER, List.of(), views, PROFILES, new UtilSumModel(1, 0, 0), new MemoryRule(0), Map.of(), Set.of());
        return journal == null ? s : s.withRunningJournal(journal);
    }

    static double everyJob(Map<String, Running> running) {
        double most = 0;
        for (Running r : running.values()) if (r.known) most = Math.max(most, r.left / 2.0);
        return most;
    }

    @Test
    void theJournalsAnswerIsALookAtEveryJob() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            RunningJournal journal = new RunningJournal(64); // small: a round that missed changes starts anew
            LongestRunning followed = new LongestRunning(), scanning = new LongestRunning();
            Map<String, Running> running = new LinkedHashMap<>();
            List<Integer> free = new ArrayList<>();
            for (int g = 0; g < CLUSTER.gpuCount(); g++) free.add(g);
            int next = 0;
            for (int round = 0; round < 400; round++) {
                for (Running r : running.values()) r.left = Math.max(0, r.left - rnd.nextDouble(0, 50)); // they run down
                int changes = rnd.nextInt(0, rnd.nextInt(10) == 0 ? 80 : 4);
                for (int c = 0; c < changes; c++) {
                    if (!free.isEmpty() && (running.isEmpty() || rnd.nextBoolean())) {
                        int gpu = free.remove(rnd.nextInt(free.size()));
                        Job job = new Job("j" + next++, "u", 0, 1, SIG, 1e6, 1000, 0);
                        Running r = new Running(job, gpu, rnd.nextDouble(0, 20_000));
                        running.put(job.id(), r);
                        journal.started(job);
                    } else if (!running.isEmpty()) {
                        Running r = new ArrayList<>(running.values()).get(rnd.nextInt(running.size()));
                        running.remove(r.job.id());
                        free.add(r.gpu);
                        journal.stopped(r.job);
                    }
                }
                // now and then a job outruns its length (known no more until it starts again)
                if (!running.isEmpty() && rnd.nextInt(8) == 0) new ArrayList<>(running.values()).get(rnd.nextInt(running.size())).known = false;
                double expected = everyJob(running);
                assertThat(followed.secondsLeft(snapshot(round, running, journal))).as("seed %d round %d", seed, round).isEqualTo(expected);
                assertThat(scanning.secondsLeft(snapshot(round, running, null))).isEqualTo(expected);
            }
        }
    }

    @Test
    void aJobThatStoppedNoLongerCountsAndOneStartedAgainCountsAnew() {
        RunningJournal journal = new RunningJournal(1024);
        LongestRunning longest = new LongestRunning();
        Map<String, Running> running = new LinkedHashMap<>();
        Running a = new Running(new Job("a", "u", 0, 1, SIG, 1e6, 1000, 0), 0, 2000);
        Running b = new Running(new Job("b", "u", 0, 1, SIG, 1e6, 1000, 0), 1, 1000);
        running.put("a", a);
        running.put("b", b);
        journal.started(a.job);
        journal.started(b.job);
        assertThat(longest.secondsLeft(snapshot(0, running, journal))).isEqualTo(1000); // 2,000 iterations at 2 per second
        a.left = 1500;
        assertThat(longest.secondsLeft(snapshot(1, running, journal))).isEqualTo(750);
        running.remove("a");
        journal.stopped(a.job);
        assertThat(longest.secondsLeft(snapshot(2, running, journal))).isEqualTo(500);
        a.left = 1800; // restarted: it repeats some work, so it has more left than when it stopped
        running.put("a", a);
        journal.started(a.job);
        assertThat(longest.secondsLeft(snapshot(3, running, journal))).isEqualTo(900);
        a.known = false;
        assertThat(longest.secondsLeft(snapshot(4, running, journal))).as("a outran its length").isEqualTo(500);
    }
}
