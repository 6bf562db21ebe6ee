package dev.tandem.cli;

import dev.tandem.core.policies.PolicyCatalog;
import picocli.CommandLine.Command;

import java.util.Map;

/** Lists the built-in policies. */
@Command(name = "policies", mixinStandardHelpOptions = true, footer = {"", "Example: tandem policies"}, description = "List the built-in scheduling policies.")
final class PoliciesCommand implements Runnable {
    private static final Map<String, String> SUMMARY = Map.of(
            "fifo", "first in, first out, one job per GPU, no backfill (the baseline)",
            "sjf", "shortest expected job first, exclusive GPUs, with backfill",
            "srtf", "shortest remaining time first, preemptive, exclusive GPUs",
            "tiresias", "Tiresias discretised 2D-LAS, preemptive, exclusive GPUs (NSDI'19)",
            "fifo-packed", "Gavel's FIFO with packing when normalised throughput sum >= 1.5 (OSDI'20); packs the blocked head, never re-packs",
            "gavel-packed", "Gavel's FIFO with packing as its simulator runs it: the whole allocation rebuilt at each 360 s round's end, moves cost a restart",
            "lucid", "Lucid's indolent packing by sharing score and memory cap (ASPLOS'23)",
            "gandiva", "Gandiva-style greedy packing by GPU utilisation with introspection (OSDI'18)",
            "tandem", "tandem: co-location by the compatibility metric, matching priced by an LP plan over the queue, "
                    + "memory- and slowdown-bounded; --objective balanced (default): shortest first, long jobs by their latest start");

    @Override public void run() {
        for (String n : PolicyCatalog.names()) System.out.printf("%-18s %s%n", n, SUMMARY.getOrDefault(n, ""));
        System.out.printf("%-18s %s%n", "tandem:OBJ", "tandem with objective OBJ (makespan, jct, balanced) instead of --objective, to compare them in one run");
        System.out.printf("%-18s %s%n", "gavel-packed:ROUND", "gavel-packed with rounds of ROUND (e.g. 120s) instead of Gavel's 360 s; 0: at every event");
    }
}
