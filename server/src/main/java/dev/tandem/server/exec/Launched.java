package dev.tandem.server.exec;

/** A started process: its pid and start time (epoch ms, null if the OS does not say), kept to re-adopt it later. */
public record Launched(long pid, Long startedAt) {}
