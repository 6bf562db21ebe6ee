package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.QueueJournal;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shortest-first order followed through a world's {@link QueueJournal} must be exactly the order found by
 * rescanning the queue every round: the same jobs in the same order, through queues that grow past the window
 * (4,096 jobs) and shrink back, jobs leaving from anywhere, suspended jobs coming back in the middle, equal lengths,
 * several priorities, starving and urgent jobs, and rounds the policy skips.
 */
class QueueOrderTest {
    private static final double STARVATION = 50_000;

    /** A queue kept in submission order, as the simulator keeps it, with its journal. */
    private static final class World {
        final Comparator<PendingJob> order = Comparator.comparingDouble((PendingJob p) -> p.job().submitTime())
                .thenComparing(p -> Integer.parseInt(p.id()));
        final QueueJournal journal = new QueueJournal(order, 1 << 16);
        final List<PendingJob> queue = new ArrayList<>();

        void enter(PendingJob p) {
            int at = Collections.binarySearch(queue, p, order);
            queue.add(-at - 1, p);
            journal.entered(p);
        }

        PendingJob leave(int at) {
            PendingJob p = queue.remove(at);
            journal.left(p);
            return p;
        }
    }

    @Test void followingTheJournalGivesTheOrderOfARescanEveryRound() {
        for (long seed = 1; seed <= 3; seed++) compare(seed, seed == 3);
    }

    private static void compare(long seed, boolean priorities) {
        Random rnd = new Random(seed);
        Fixture f = new Fixture(4, 8, 80_000);
        WorkloadSignature[] sigs = {f.profile("a", 0.3, 1000), f.profile("b", 0.5, 1000), f.profile("c", 0.8, 1000)};
        World world = new World();
        QueueOrder followed = new QueueOrder(), rescanned = new QueueOrder();
        List<PendingJob> suspended = new ArrayList<>();
        int nextId = 0, compared = 0, longRounds = 0;
        double now = 0;
        for (int round = 0; round < 400; round++) {
            now += 60 + rnd.nextInt(600);
            // arrivals: mostly a few, sometimes a burst that takes the queue past the window
            int arrivals = rnd.nextInt(20) == 0 ? 1500 + rnd.nextInt(2500) : rnd.nextInt(6);
            for (int k = 0; k < arrivals; k++) {
                double solo = 600 * (1 + rnd.nextInt(8)); // few distinct lengths: ties decided by queue order
                Job j = new Job(Integer.toString(nextId++), "u", now, 1 + rnd.nextInt(2) * 3, sigs[rnd.nextInt(3)], solo * 10, 1000,
                        priorities && rnd.nextInt(10) == 0 ? 5 : 0);
                world.enter(new PendingJob(j, now, 0, j.totalIterations(), 0));
            }
            // starts: from the head, the tail and anywhere; sometimes most of the queue drains
            int starts = rnd.nextInt(12) == 0 ? world.queue.size() * 3 / 4 : rnd.nextInt(8);
            for (int k = 0; k < starts && !world.queue.isEmpty(); k++) {
                int n = world.queue.size();
                int at = switch (rnd.nextInt(3)) { case 0 -> rnd.nextInt(Math.min(n, 50)); case 1 -> n - 1 - rnd.nextInt(Math.min(n, 50)); default -> rnd.nextInt(n); };
                PendingJob p = world.leave(at);
                if (rnd.nextInt(4) == 0) suspended.add(p);
            }
            // suspended jobs come back in the middle of the queue (their submission time), with attained service
            for (int k = suspended.size() - 1; k >= 0 && rnd.nextBoolean(); k--) {
                PendingJob p = suspended.remove(k);
                world.enter(new PendingJob(p.job(), now, 100 + rnd.nextInt(1000), p.remainingIterations() / 2, p.restarts() + 1));
            }
            if (world.queue.size() > QueueOrder.WINDOW) longRounds++;
            if (rnd.nextInt(5) == 0) continue; // a round the policy is not asked (nothing new for it)
            double horizon = rnd.nextBoolean() ? Double.NaN : 4000 + rnd.nextInt(40_000);
            int limit = rnd.nextBoolean() ? 512 : 5000;
            SchedulerSnapshot withJournal = snapshot(f, now, world.queue).withQueueJournal(world.journal);
            SchedulerSnapshot without = snapshot(f, now, world.queue);
            List<PendingJob> a = followed.select(withJournal, Objective.BALANCED, limit, STARVATION, horizon, 0.5);
            List<PendingJob> b = rescanned.select(without, Objective.BALANCED, limit, STARVATION, horizon, 0.5);
            assertEquals(b.size(), a.size(), "seed " + seed + " round " + round + " queue " + world.queue.size());
            for (int i = 0; i < a.size(); i++) assertSame(b.get(i), a.get(i), "seed " + seed + " round " + round + " position " + i);
            compared++;
        }
        assertTrue(compared > 250, "rounds compared: " + compared);
        assertTrue(longRounds > 20 && longRounds < compared - 20, "rounds with a queue longer than the window: " + longRounds);
        // the journal is what made the difference: most rounds followed it instead of passing over the window
        assertTrue(followed.rescans() < compared / 4, "rescans with a journal: " + followed.rescans() + " of " + compared);
        assertEquals(compared, rescanned.rescans());
    }

    private static SchedulerSnapshot snapshot(Fixture f, double now, List<PendingJob> queue) {
        f.now = now;
        SchedulerSnapshot s = f.snapshot();
        return new SchedulerSnapshot(now, s.cluster(), Collections.unmodifiableList(queue), List.of(), s.profiles(), s.compatibility(),
                s.memoryRule(), Map.of(), Set.of());
    }

    @Test void starvingJobsTakeAtMostHalfOfTheRound() {
        // 20 jobs past the starvation bound (long ones), then 20 short ones that have not waited long: a round of 16 gets
        // the 8 that waited longest, then the 8 shortest; with the makespan objective the starving ones keep it all
        Fixture f = new Fixture(1, 1, 24576);
        var a = f.profile("A", 50, 1000);
        f.now = 100_000;
        for (int i = 0; i < 20; i++) f.queued(f.job(Integer.toString(i), a, 1, 10_000 + i, i), i, 0);
        for (int i = 20; i < 40; i++) f.queued(f.job(Integer.toString(i), a, 1, 100 + (40 - i), 90_000 + i), 90_000 + i, 0);
        List<PendingJob> round = new QueueOrder().select(f.snapshot(), Objective.BALANCED, 16, STARVATION, Double.NaN, 0.5);
        assertThat(round).extracting(PendingJob::id).containsExactly("0", "1", "2", "3", "4", "5", "6", "7",
                "39", "38", "37", "36", "35", "34", "33", "32");
        List<PendingJob> makespan = new QueueOrder().select(f.snapshot(), Objective.MAKESPAN, 16, STARVATION, Double.NaN, 0.5);
        assertThat(makespan).extracting(PendingJob::id).allMatch(id -> Integer.parseInt(id) < 20);
    }

    @Test void urgentJobsLeadTheRoundTheLongestFirst() {
        // balanced objective, a horizon of 8,000 s and a latest-start share of 0.5: a job that needs 4,000 GPU-seconds or
        // more is urgent. The 4-GPU job of 1,500 s (6,000 GPU-seconds) and the 1-GPU job of 5,000 s are; they come first,
        // the longer first (the earliest latest start), then the rest shortest first
        Fixture f = new Fixture(4, 8, 24576);
        var a = f.profile("A", 50, 1000);
        f.now = 1_000;
        f.queued(f.job("gang1500", a, 4, 1_500, 0), 0, 0).queued(f.job("one5000", a, 1, 5_000, 1), 1, 0)
                .queued(f.job("gang700", a, 4, 700, 2), 2, 0).queued(f.job("one3000", a, 1, 3_000, 3), 3, 0)
                .queued(f.job("one100", a, 1, 100, 4), 4, 0);
        List<PendingJob> round = new QueueOrder().select(f.snapshot(), Objective.BALANCED, 16, STARVATION, 8_000, 0.5);
        assertThat(round).extracting(PendingJob::id).containsExactly("one5000", "gang1500", "one100", "gang700", "one3000");
        List<PendingJob> noPlan = new QueueOrder().select(f.snapshot(), Objective.BALANCED, 16, STARVATION, Double.NaN, 0.5);
        assertThat(noPlan).extracting(PendingJob::id).containsExactly("one100", "gang700", "gang1500", "one3000", "one5000");
    }

    @Test void aJobOfUnknownLengthReachesItsLatestStartByTheServiceItHasHad() {
        // the same plan as above (urgent from 4,000 GPU-seconds); four jobs submitted together whose lengths nobody
        // knows, each expected to need as long as it has already run (at least 600 s). The one that ran 5,000 s and the
        // 4-GPU job that ran 1,500 s on each GPU (6,000 GPU-seconds) are urgent and resume first, the longer first;
        // the others take turns by least attained service. Were only jobs of known length urgent, the long-running
        // ones would wait behind every newcomer: fresh, ran1000, gang, ran5000
        Fixture f = new Fixture(4, 8, 24576);
        var a = f.profile("A", 50, 1000);
        f.now = 10_000;
        String[] ids = {"fresh", "ran1000", "ran5000", "gang"};
        double[] attained = {0, 1_000, 5_000, 6_000};
        for (int k = 0; k < ids.length; k++) {
            Job j = f.job(ids[k], a, ids[k].equals("gang") ? 4 : 1, 20_000, 0);
            f.queue.add(new PendingJob(j, 9_000, attained[k], j.totalIterations(), 1, false, k));
        }
        List<PendingJob> round = new QueueOrder().select(f.snapshot(), Objective.BALANCED, 16, STARVATION, 8_000, 0.5);
        assertThat(round).extracting(PendingJob::id).containsExactly("ran5000", "gang", "fresh", "ran1000");
    }

    @Test void manyUrgentJobsComeInTheOrderOfAFewTheLongestFirst() {
        // the plan above (urgent from 4,000 GPU-seconds); 1- and 2-GPU jobs of distinct lengths. Up to 64 urgent jobs a
        // round sorts them, beyond it walks down its length index: either way the urgent ones (remaining x GPUs at least
        // 4,000) lead, the longest first, then the rest shortest first
        for (int jobs : new int[] {40, 400}) {
            Fixture f = new Fixture(4, 8, 24576);
            var a = f.profile("A", 50, 1000);
            f.now = 1_000;
            Random rnd = new Random(jobs);
            List<Job> all = new ArrayList<>();
            for (int k = 0; k < jobs; k++) {
                Job j = f.job("j" + k, a, 1 + rnd.nextInt(2), 200 + (k * 37 % jobs) * 12_000.0 / jobs + rnd.nextInt(30) / 100.0, 0);
                all.add(j);
                f.queued(j, 0, 0);
            }
            List<PendingJob> round = new QueueOrder().select(f.snapshot(), Objective.BALANCED, 512, STARVATION, 8_000, 0.5);
            Comparator<Job> byLength = Comparator.comparingDouble(Job::totalIterations);
            List<String> urgent = all.stream().filter(j -> j.totalIterations() / 10 * j.gpus() >= 4_000).sorted(byLength.reversed()).map(Job::id).toList();
            List<String> rest = all.stream().filter(j -> j.totalIterations() / 10 * j.gpus() < 4_000).sorted(byLength).map(Job::id).toList();
            assertThat(urgent.size()).as("urgent of " + jobs).isGreaterThan(jobs == 40 ? 0 : QueueOrder.SORTED_URGENT);
            List<String> expected = new ArrayList<>(urgent);
            expected.addAll(rest);
            assertThat(round).extracting(PendingJob::id).as(jobs + " jobs").containsExactlyElementsOf(expected);
        }
    }
}
