package dev.tandem.core.policies;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.core.policy.ClusterView;
import dev.tandem.core.policy.Decision;
import dev.tandem.core.policy.PendingJob;
import dev.tandem.core.policy.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packing policies look at one host per class of interchangeable lone jobs; they must decide exactly as they
 * did when they scanned every lone job for every queued job. The reference here is that full scan.
 */
class HostClassesTest {
    /** The skeleton as it was before host classes: every lone job is a candidate host for every queued job. */
    private static List<Decision> fullScan(SchedulerSnapshot s, String policy, IndolentFifoPacking.HostRule rule) {
        ClusterView view = new ClusterView(s);
        List<Decision> out = new ArrayList<>();
        for (PendingJob p : s.queue()) {
            Optional<List<Integer>> idle = view.findIdle(p.job());
            if (idle.isPresent()) {
                view.place(p.job(), idle.get());
                out.add(new Decision.Start(p.id(), idle.get(), policy + " head: idle GPU(s) " + idle.get()));
                continue;
            }
            List<Packing.Host> hosts = new ArrayList<>();
            for (Job r : view.soleTenants()) {
                if (r.gpus() != p.job().gpus()) continue;
                List<Integer> gpus = view.gpusOf(r.id());
                if (s.crashedTogether(p.job(), r) || !view.memoryFits(p.job(), gpus)) continue;
                hosts.add(new Packing.Host(r, gpus));
            }
            Optional<IndolentFifoPacking.Choice> c = rule.choose(s, view, p.job(), hosts);
            if (c.isEmpty()) break;
            view.place(p.job(), c.get().host().gpus());
            out.add(new Decision.Start(p.id(), c.get().host().gpus(), c.get().reason()));
        }
        return out;
    }

    private static List<Decision> indexed(SchedulerSnapshot s, String policy, IndolentFifoPacking.HostRule rule) {
        List<Decision> out = new ArrayList<>();
        IndolentFifoPacking.schedule(s, new ClusterView(s), policy, rule, new HostClasses(), out);
        return out;
    }

    /** A busy 4x4 cluster with lone jobs, pairs and gangs of six models, a long mixed queue and a crashed pair. */
    private static SchedulerSnapshot randomWorld(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Fixture f = new Fixture(4, 4, 24576);
        String[] models = {"A", "B", "C", "D", "E", "F"};
        List<WorkloadSignature> sigs = new ArrayList<>();
        for (String m : models) sigs.add(f.profile(m, 10 + rnd.nextInt(85), 1000 + rnd.nextInt(14000)));
        for (String a : models) for (String b : models) {
            if (a.compareTo(b) <= 0 && rnd.nextInt(4) > 0) f.predict(a, b, 0.4 + rnd.nextDouble() * 0.6, 0.4 + rnd.nextDouble() * 0.6, 0.05);
        }
        f.oomPairs.add(dev.tandem.core.runtime.OutOfMemoryRule.pairKey(sigs.get(0), sigs.get(1)));
        f.oomPairs.add(dev.tandem.core.runtime.OutOfMemoryRule.pairKey(sigs.get(1), sigs.get(0)));
        int gpu = 0, id = 0;
        while (gpu < 16) {
            if (rnd.nextInt(8) == 0) { // a few idle GPUs: queued jobs placed there become hosts later in the round
                gpu++;
                continue;
            }
            int size = gpu % 4 == 0 && rnd.nextInt(5) == 0 ? 2 : 1;
            List<Integer> gpus = size == 2 ? List.of(gpu, gpu + 1) : List.of(gpu);
            f.running(f.job("r" + id++, sigs.get(rnd.nextInt(sigs.size())), size, 100 + rnd.nextInt(1000), 0), gpus, 100, 0, Double.NaN);
            if (rnd.nextInt(4) == 0) f.running(f.job("r" + id++, sigs.get(rnd.nextInt(sigs.size())), size, 100, 0), gpus, 100, 0, Double.NaN);
            gpu += size;
        }
        for (int q = 0; q < 40; q++) f.queued(f.job("q" + q, sigs.get(rnd.nextInt(sigs.size())), rnd.nextInt(6) == 0 ? 2 : 1, 100, q));
        return f.snapshot();
    }

    @Test
    void everyPackingRuleDecidesAsAFullScanWould() {
        FifoPackedPolicy fifoPacked = new FifoPackedPolicy(1.2);
        LucidPolicy lucid = new LucidPolicy();
        GandivaPolicy gandiva = new GandivaPolicy();
        int paired = 0;
        for (long seed = 1; seed <= 60; seed++) {
            SchedulerSnapshot s = randomWorld(seed);
            for (var rule : List.<IndolentFifoPacking.HostRule>of(fifoPacked::choose, lucid::choose, gandiva::choose)) {
                List<Decision> expected = fullScan(randomWorld(seed), "p", rule);
                assertThat(indexed(s, "p", rule)).as("seed %d", seed).isEqualTo(expected);
                paired += (int) expected.stream().filter(d -> !d.reason().startsWith("p head")).count();
            }
        }
        assertThat(paired).as("the worlds must exercise packing, not only idle GPUs").isGreaterThan(100);
    }

    /**
     * A packing policy keeps its classes across rounds, following the world's journal of lone tenants. A round's own
     * changes (hosts joined, jobs placed alone) are taken back before the next: asked again before the world applied
     * anything (a world may refuse a decision), it decides as it did, and as a policy that never kept anything.
     */
    @Test
    void aRoundTheWorldDidNotApplyLeavesNoTrace() {
        int compared = 0;
        for (long seed = 1; seed <= 30; seed++) {
            for (String name : List.of("fifo-packed", "lucid", "gandiva")) {
                dev.tandem.core.policy.SoleTenantJournal journal = new dev.tandem.core.policy.SoleTenantJournal(64);
                dev.tandem.core.policy.Policy kept = PolicyCatalog.create(name);
                List<Decision> first = kept.decide(randomWorld(seed).withSoleTenantJournal(journal));
                List<Decision> again = kept.decide(randomWorld(seed).withSoleTenantJournal(journal));
                assertThat(again).as("%s seed %d", name, seed).isEqualTo(first).isEqualTo(PolicyCatalog.create(name).decide(randomWorld(seed)));
                if (first.stream().anyMatch(d -> d.reason().contains("paired") || d.reason().contains("pack"))) compared++;
            }
        }
        assertThat(compared).as("rounds that paired a job").isGreaterThan(20);
    }
}
