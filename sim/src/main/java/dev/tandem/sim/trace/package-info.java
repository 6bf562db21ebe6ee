/**
 * Readers for real cluster traces and their conversion into simulator jobs.
 * <p>
 * Each reader ({@link dev.tandem.sim.trace.AlibabaPodReader}, {@link dev.tandem.sim.trace.PhillyJobLogReader},
 * {@link dev.tandem.sim.trace.HeliosLogReader}, {@link dev.tandem.sim.trace.GavelTraceReader},
 * {@link dev.tandem.sim.trace.PolluxPhillyCsvReader}, {@link dev.tandem.sim.trace.MuriTraceReader}) streams its
 * file row by row into {@link dev.tandem.sim.trace.TraceRecord}s and returns them in submission order, the
 * earliest at time 0 (the subtracted origin is kept in the result). Bad rows either fail the read with file, line
 * and field ({@link dev.tandem.sim.trace.BadRows#REJECT}) or are counted and skipped
 * ({@link dev.tandem.sim.trace.BadRows#SKIP}); rows that are fine but not GPU jobs that ran are counted as
 * ignored. {@link dev.tandem.sim.trace.ProfileAssigner} gives each record a profile and
 * {@link dev.tandem.sim.trace.TraceJobs} makes the jobs.
 */
package dev.tandem.sim.trace;
