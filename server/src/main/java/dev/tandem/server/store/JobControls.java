package dev.tandem.server.store;

import java.util.List;

/**
 * What a user set to steer when a job may run, besides the policy: its priority (higher first), the jobs that must
 * succeed before it starts, whether it is held back, and its place in a job array.
 *
 * @param arrayJob   the id of the array's first job, or null when the job is not part of an array
 * @param arrayIndex its index in the array ({@code TANDEM_ARRAY_INDEX}), or null
 */
public record JobControls(int priority, List<Long> dependsOn, boolean held, Long arrayJob, Integer arrayIndex) {
    public static final JobControls NONE = new JobControls(0, List.of(), false, null, null);

    public JobControls {
        dependsOn = List.copyOf(dependsOn);
    }

    /** The same controls as a member of an array. */
    public JobControls inArray(Long arrayJob, int arrayIndex) {
        return new JobControls(priority, dependsOn, held, arrayJob, arrayIndex);
    }
}
