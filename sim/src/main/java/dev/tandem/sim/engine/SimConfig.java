package dev.tandem.sim.engine;

import dev.tandem.core.compat.MemoryRule;

/**
 * Simulator settings.
 *
 * @param roundSeconds          extra scheduling points every this many seconds (0: only on events); preemptive
 *                              and introspecting policies need them
 * @param observeAfterSeconds   how long a job must run with the same neighbours before its speed counts as measured
 * @param oomDetectSeconds      delay between starting a job on a GPU whose memory it overflows and the crash
 * @param restartOverheadSeconds solo-speed seconds of work a suspended or crashed job repeats on resume
 *                              (reloading its checkpoint and warming up)
 * @param memoryRule            the memory rule handed to policies (the truth is the GPU's real capacity)
 * @param knowledge             what the policies know about job length ({@link Knowledge}); {@code seed} draws its errors
 * @param queueRules            which waiting jobs the policies see, in which order ({@link QueueRules})
 */
public record SimConfig(double roundSeconds, double observeAfterSeconds, double oomDetectSeconds,
                        double restartOverheadSeconds, MemoryRule memoryRule, Knowledge knowledge, long seed, QueueRules queueRules) {
    /** Exact knowledge of job length, the queue as submitted. */
    public SimConfig(double roundSeconds, double observeAfterSeconds, double oomDetectSeconds, double restartOverheadSeconds, MemoryRule memoryRule) {
        this(roundSeconds, observeAfterSeconds, oomDetectSeconds, restartOverheadSeconds, memoryRule, Knowledge.EXACT, 0, QueueRules.SUBMISSION);
    }

    public SimConfig {
        if (knowledge == null) throw new IllegalArgumentException("knowledge is missing");
        if (queueRules == null) throw new IllegalArgumentException("queue rules are missing");
        if (roundSeconds < 0 || observeAfterSeconds < 0 || oomDetectSeconds < 0 || restartOverheadSeconds < 0) {
            throw new IllegalArgumentException("simulator times must not be negative");
        }
    }

    public static SimConfig defaults() { return new SimConfig(300, 60, 30, 30, MemoryRule.DEFAULT); }

    public SimConfig withRound(double s) { return new SimConfig(s, observeAfterSeconds, oomDetectSeconds, restartOverheadSeconds, memoryRule, knowledge, seed, queueRules); }

    public SimConfig withRestartOverhead(double s) { return new SimConfig(roundSeconds, observeAfterSeconds, oomDetectSeconds, s, memoryRule, knowledge, seed, queueRules); }

    public SimConfig withMemoryRule(MemoryRule r) { return new SimConfig(roundSeconds, observeAfterSeconds, oomDetectSeconds, restartOverheadSeconds, r, knowledge, seed, queueRules); }

    public SimConfig withKnowledge(Knowledge k, long seed) { return new SimConfig(roundSeconds, observeAfterSeconds, oomDetectSeconds, restartOverheadSeconds, memoryRule, k, seed, queueRules); }

    public SimConfig withQueueRules(QueueRules q) { return new SimConfig(roundSeconds, observeAfterSeconds, oomDetectSeconds, restartOverheadSeconds, memoryRule, knowledge, seed, q); }
}
