package dev.tandem.core.runtime;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.PendingJob;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

class AdmissionTest {
    private static final WorkloadSignature SIG = new WorkloadSignature("m", "d", 32, false);
    private final List<PendingJob> queue = new ArrayList<>();

    private AdmissionTest add(String id, String user, int gpus, int priority) {
        Job j = new Job(id, user, queue.size(), gpus, SIG, 100, 1000, priority);
        queue.add(new PendingJob(j, j.submitTime(), 0, 100, 0));
        return this;
    }

    private static List<String> ids(List<PendingJob> jobs) { return jobs.stream().map(PendingJob::id).toList(); }

    @Test
    void oneUserAtOnePriorityKeepsSubmissionOrder() {
        add("1", "ann", 1, 0).add("2", "ann", 4, 0).add("3", "ann", 1, 0);
        Admission.Result r = Admission.admit(queue, Map.of(), u -> OptionalInt.empty());
        assertThat(ids(r.admitted())).containsExactly("1", "2", "3");
        assertThat(r.refused()).isEmpty();
    }

    @Test
    void usersTakeTurnsByTheGpusTheyWouldHold() {
        // ann queued three 1-GPU jobs before bob's two; bob already holds 1 GPU. Ranks (GPUs the owner would hold):
        // ann 1, 2, 3; bob 2, 3 -> ann1, ann2, bob1 (2, later than ann2), ann3, bob2
        add("a1", "ann", 1, 0).add("a2", "ann", 1, 0).add("a3", "ann", 1, 0).add("b1", "bob", 1, 0).add("b2", "bob", 1, 0);
        Admission.Result r = Admission.admit(queue, Map.of("bob", 1), u -> OptionalInt.empty());
        assertThat(ids(r.admitted())).containsExactly("a1", "a2", "b1", "a3", "b2");
    }

    @Test
    void priorityComesBeforeFairShareAndSubmission() {
        add("a1", "ann", 1, 0).add("b1", "bob", 1, -5).add("a2", "ann", 1, 10).add("b2", "bob", 1, 0);
        Admission.Result r = Admission.admit(queue, Map.of(), u -> OptionalInt.empty());
        assertThat(ids(r.admitted())).containsExactly("a2", "a1", "b2", "b1");
    }

    @Test
    void aUserLimitAdmitsOnlyWhatFitsWithWhatTheUserHoldsAndSaysWhy() {
        add("a1", "ann", 2, 0).add("a2", "ann", 1, 0).add("a3", "ann", 2, 0).add("b1", "bob", 4, 0);
        Admission.Result r = Admission.admit(queue, Map.of("ann", 1), u -> u.equals("ann") ? OptionalInt.of(4) : OptionalInt.empty());
        // ann holds 1: a1 (2) -> 3, a2 (1) -> 4, a3 (2) would make 6 > 4
        assertThat(ids(r.admitted())).containsExactly("a1", "a2", "b1");
        assertThat(r.refused()).containsOnlyKeys("a3");
        assertThat(r.refused().get("a3")).isEqualTo("user ann may hold 4 GPU(s) at once; holds 1 and 3 more are admitted for earlier jobs, this job needs 2");
    }

    @Test
    void aJobWiderThanItsOwnersLimitIsRefusedEvenWithNothingHeld() {
        add("a1", "ann", 4, 0);
        Admission.Result r = Admission.admit(queue, Map.of(), u -> OptionalInt.of(2));
        assertThat(r.admitted()).isEmpty();
        assertThat(r.refused().get("a1")).isEqualTo("user ann may hold 2 GPU(s) at once; holds 0, this job needs 4");
    }

    /**
     * The serving order on random queues against the rule written out (priority, then the GPUs the owner would hold,
     * then submission), with priorities small and extreme (the packed sort's range, and beyond it).
     */
    @Test
    void servingOrderFollowsTheRuleOnRandomQueues() {
        java.util.Random rnd = new java.util.Random(7);
        for (int round = 0; round < 300; round++) {
            queue.clear();
            int n = 1 + rnd.nextInt(60), users = 1 + rnd.nextInt(5);
            boolean extreme = round % 10 == 0;
            Map<String, Integer> held = new java.util.HashMap<>();
            for (int u = 0; u < users; u++) if (rnd.nextBoolean()) held.put("u" + u, rnd.nextInt(9));
            for (int k = 0; k < n; k++) {
                int priority = extreme ? (rnd.nextBoolean() ? Integer.MAX_VALUE - rnd.nextInt(3) : Integer.MIN_VALUE + rnd.nextInt(3)) : rnd.nextInt(3) - 1;
                add("j" + k, "u" + rnd.nextInt(users), 1 + rnd.nextInt(8), priority);
            }
            Map<String, Integer> demand = new java.util.HashMap<>(held);
            int[] share = new int[n];
            for (int k = 0; k < n; k++) share[k] = demand.merge(queue.get(k).job().user(), queue.get(k).job().gpus(), Integer::sum);
            List<Integer> expected = new ArrayList<>();
            for (int k = 0; k < n; k++) expected.add(k);
            expected.sort(java.util.Comparator.comparingInt((Integer k) -> queue.get(k).job().priority()).reversed()
                    .thenComparingInt(k -> share[k]).thenComparingInt(k -> k));
            List<String> want = expected.stream().map(k -> queue.get(k).id()).toList();
            assertThat(ids(Admission.admit(queue, held, u -> OptionalInt.empty()).admitted())).as("round " + round).isEqualTo(want);
        }
    }
}
