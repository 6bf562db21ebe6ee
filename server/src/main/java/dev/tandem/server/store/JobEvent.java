package dev.tandem.server.store;

/** One recorded state transition of a job; {@code from} is null for the submission. */
public record JobEvent(long jobId, long at, JobState from, JobState to, String actor, String reason) {}
