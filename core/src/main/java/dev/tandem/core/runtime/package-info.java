/**
 * The rules every world applies around a policy's decision, written once (the checks a policy applies to a pair
 * before it decides live beside the policies, in {@link dev.tandem.core.policy.Pairing}): a job's life cycle
 * ({@link dev.tandem.core.runtime.Lifecycle}: its phases and the steps between them, which the simulator moves its
 * jobs through and the daemon's store checks every change of state against), the one check of each step of
 * a decision and the walk over its steps ({@link dev.tandem.core.runtime.DecisionRules}: the job where the step needs it, as
 * the policy was shown it and the decision's earlier steps moved it, then
 * {@link dev.tandem.core.runtime.PlacementRules} for where it may go, with the co-location limit, and
 * {@link dev.tandem.core.runtime.Reservations} for GPUs held for a waiting gang, which both worlds show), how a
 * decision is carried out and what stays between decisions ({@link dev.tandem.core.runtime.DecisionCarrier}: the one
 * view of a world the rules check against, the GPUs held for waiting gangs, the runs being
 * stopped and where their jobs go next, and the GPUs promised to jobs until those runs have left; the simulator's stops
 * are over at once, the daemon's runs checkpoint and exit in their own time), who holds which GPUs ({@link dev.tandem.core.runtime.Placements}: the one ledger the simulator places its
 * jobs in and the daemon its runs, which holds the co-location limit and the idle counts and lone jobs policies read,
 * handed to them as a {@link dev.tandem.core.runtime.PlacedOccupancy}), what an
 * out-of-memory crash teaches ({@link dev.tandem.core.runtime.OutOfMemoryRule}) and what a world has learned so
 * far ({@link dev.tandem.core.runtime.MemoryLessons}), when a co-located pair's measured
 * speeds go to the online model ({@link dev.tandem.core.runtime.PairReports}), the waiting queue and its journal
 * ({@link dev.tandem.core.runtime.WaitingQueue}), and which waiting jobs a policy may start and in which order
 * ({@link dev.tandem.core.runtime.Admission}: priority, fair share between users, per-user GPU limits; the daemon
 * applies it every round, the simulator with {@code --fair-share}, since trace replays and the peers' own simulators
 * keep submission order), when a world asks its policy for a decision ({@link dev.tandem.core.runtime.DecisionDue}), and the CPU time each
 * world reports beside the wall time of its work ({@link dev.tandem.core.runtime.ThreadCpu}).
 * The simulator and the live daemon both call them, so a decision gets the same verdict in every world: the
 * simulator fails loudly on a refused decision (a policy bug), the daemon logs it at WARN, counts it and records
 * it in the job's history (the world may have moved since the snapshot).
 */
package dev.tandem.core.runtime;
