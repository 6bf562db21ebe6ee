package dev.tandem.sim.trace;

/**
 * One job as a cluster trace recorded it, before it is given a workload profile.
 *
 * @param id          the trace's job id (or the data row's index, counted from 0, for traces without ids)
 * @param user        the submitting user, "" when the trace has none
 * @param vc          the virtual cluster / team, "" when the trace has none
 * @param submitTime  seconds since the earliest submission in the read result (which is at 0)
 * @param gpus        gang size, at least 1
 * @param durationS   the run time the trace recorded, seconds; NaN only when the trace gives steps instead
 * @param totalSteps  the work in the trace's own iterations/steps (Gavel, Muri), NaN when absent
 * @param jobType     the model or job-type name if the trace has one, else ""
 * @param gpuFraction the share of one GPU requested (Alibaba's gpu_milli / 1000 for one-GPU pods), else 1.0
 */
public record TraceRecord(String id, String user, String vc, double submitTime, int gpus, double durationS,
                          double totalSteps, String jobType, double gpuFraction) {
    public TraceRecord {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("job id is empty");
        user = user == null ? "" : user;
        vc = vc == null ? "" : vc;
        jobType = jobType == null ? "" : jobType;
        if (!Double.isFinite(submitTime)) throw new IllegalArgumentException("job " + id + ": submit time is not finite");
        if (gpus < 1) throw new IllegalArgumentException("job " + id + ": needs at least one GPU, got " + gpus);
        if (!Double.isNaN(durationS) && !(durationS > 0 && durationS < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("job " + id + ": duration must be positive, got " + durationS);
        }
        if (!Double.isNaN(totalSteps) && !(totalSteps > 0 && totalSteps < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("job " + id + ": total steps must be positive, got " + totalSteps);
        }
        if (Double.isNaN(durationS) && Double.isNaN(totalSteps)) throw new IllegalArgumentException("job " + id + ": has neither a duration nor steps");
        if (!(gpuFraction > 0 && gpuFraction <= 1)) throw new IllegalArgumentException("job " + id + ": GPU fraction must be within (0, 1], got " + gpuFraction);
    }

    /** A record whose work is given as a run time only (most traces). */
    public static TraceRecord timed(String id, String user, String vc, double submitTime, int gpus, double durationS, String jobType) {
        return new TraceRecord(id, user, vc, submitTime, gpus, durationS, Double.NaN, jobType, 1.0);
    }

    public boolean hasDuration() { return !Double.isNaN(durationS); }

    /** The same record submitted {@code shift} seconds earlier. */
    TraceRecord shifted(double shift) {
        return shift == 0 ? this : new TraceRecord(id, user, vc, submitTime - shift, gpus, durationS, totalSteps, jobType, gpuFraction);
    }
}
