package dev.tandem.sim.engine;

/**
 * What a run keeps beyond its metrics and per-job records; each part costs memory on million-job runs, so it is
 * kept only when asked for (a report asks for all of it).
 *
 * @param decisions    how many decisions to keep with their reasons (all are counted)
 * @param timelineGpus the first this many GPUs get a timeline of who ran on them and next to whom ({@link GpuSpan})
 * @param coRuns       keep every co-located stretch with the oracle's predicted and the true speed ({@link CoRun})
 */
public record Recording(int decisions, int timelineGpus, boolean coRuns) {
    /** Enough for a text table: the first 400 decisions, no timeline, no co-located stretches. */
    public static final Recording DEFAULT = new Recording(400, 0, false);

    /** GPUs drawn in a report's timeline: enough to see the pattern, few enough to read; the report names the cut. */
    public static final int REPORT_TIMELINE_GPUS = 64;

    public Recording {
        if (decisions < 0 || timelineGpus < 0) throw new IllegalArgumentException("recording sizes must not be negative");
    }

    /** Everything a report draws, and at least {@code decisions} decisions. */
    public static Recording forReport(int decisions) {
        return new Recording(Math.max(DEFAULT.decisions, decisions), REPORT_TIMELINE_GPUS, true);
    }

    public Recording withDecisions(int n) { return new Recording(n, timelineGpus, coRuns); }
}
