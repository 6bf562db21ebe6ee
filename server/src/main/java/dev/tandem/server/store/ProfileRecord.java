package dev.tandem.server.store;

import dev.tandem.core.model.JobProfile;

/**
 * A stored solo profile: the policy's {@link JobProfile} plus what only the server keeps (DCGM DRAM activity,
 * how many samples it rests on, whether the speed was measured, which job and GPU it came from).
 */
public record ProfileRecord(JobProfile profile, boolean speedMeasured, double dramActive, int samples, Long sourceJob,
                            String gpuName, long measuredAt) {}
