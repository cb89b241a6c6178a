// One trial of a checkpoint-restart job: a discrete-event loop over wall-clock time (no SimGrid).
//
// The job computes in segments of `interval` (τ) compute followed by a blocking checkpoint write
// (δ). A failure (from a FailureProcess) loses everything since the last completed checkpoint,
// including a partly written checkpoint (both counted as lost work); then detection, restart and
// reload pass (u0 = their sum) and the job resumes from that checkpoint. Failures keep arriving
// while the job is down: each is counted as an unexpected interruption and starts the recovery
// over (detection, restart, reload again), as in Daly's model (closed_forms.hpp), and lengthens the
// same recovery. A recovery's duration runs from the failure that stopped the running job to the
// job running again; one cut short by the end of the horizon is not recorded.
//
// Planned maintenance (the k-th due at k · planned_every, k ≥ 1) waits for the next completed
// checkpoint, so it never loses work: the job then stops for planned_duration, restart and reload
// (no detection). Maintenance that falls due while one is pending or under way is merged into it.
// A failure during maintenance is handled like any failure while down.
//
// Stopping: HORIZON stops at a wall-clock time (ETTR = useful / horizon; compute since the last
// checkpoint at the horizon counts as useful); WORK stops when `amount` of compute is checkpointed
// (the last segment is shortened to fit and ends with a checkpoint, as in Daly's model), or, if it
// never gets there, at `wall_cap` with finished = false.
//
// Every second of wall time is either useful or in exactly one TimeLost bucket.
//
// The other strategies change what a failure loses and what the recovery costs (scope from the
// failure's component, sim/scenario/reliability_spec.hpp):
//   IN_MEMORY_CHECKPOINT (Gemini)  a failure loses the work since the last in-memory checkpoint and
//       reloads from peers (memory_reload), unless the failures of one recovery episode (from the
//       failure that stopped the job to running again) have hit every node of one replica group:
//       then it falls back to the last storage checkpoint and the storage reload. GPU, NODE and
//       NETWORK failures take the node's host memory with them (the node is replaced; a NETWORK
//       failure counts as its one node until correlated failures are built); a failure whose node
//       is unknown (-1, a trace location that is not a number) is a group of its own. JOB failures
//       (software) keep host memory: the processes restart in place and reload from it.
//   JUST_IN_TIME_CHECKPOINT (Gupta et al.)  with dp ≥ 2, a GPU, NODE or NETWORK failure loses only
//       the step in flight (the replica's state at the last completed step is saved and restored:
//       jit_cost, counted as reload); that checkpoint is persistent. JOB failures (a software bug
//       stops every replica) and dp = 1 fall back to the last storage checkpoint. A second failure
//       during the recovery is assumed not to take out the other replicas.
//   SPARES  a GPU, NODE or NETWORK failure takes a spare from the pool (swap, counted as restart,
//       instead of the restart); the failed node is repaired `repair` after it failed and refills
//       the pool (up to its size); a failure the pool cannot cover restarts as checkpoint-restart
//       does (the scheduler finds a node). JOB failures need no spare: restart as usual. Lost work
//       and reloads are checkpoint-restart's.
//   CONTINUING (reconfigure, redundant, reroute, swarm; degradation.hpp)  a GPU, NODE or NETWORK
//       failure that leaves the strategy able to go on costs detection (none with a `warning`, a
//       preemption notice: Parcae) and `pause` (less the warning), and the step in flight when
//       `loses_step` (not with a warning); the failed nodes are then down until `repair` after the
//       failure, each return costing `rejoin` (a stall), and the job runs at the DownSet's rate:
//       the rest of its time is booked as degraded. A failure that the strategy cannot survive
//       (DownSet::fatal), a JOB failure or silent corruption restarts from storage like
//       checkpoint-restart, and the restart brings every node back. A failure of a node that is
//       already down changes nothing and is not counted.
// A planned stop saves the state as part of the stop (no work lost, not priced separately) and
// reloads from storage, for every strategy.
//
// Asynchronous storage checkpoints (async): the job blocks for `snapshot` (to host memory), then
// the write runs in the background for `write` while the job computes at (1 − background_slowdown)
// of its rate (the loss booked as checkpoint writes); the checkpoint exists once the write ends. A
// snapshot that falls due while the previous write runs waits for it. The last checkpoint of a WORK
// stop is blocking.
//
// Silent data corruption (FailureEvent::corrupted_at < time): every checkpoint taken after the
// corruption is bad, so the job rolls back to the last storage checkpoint taken before it (in-memory
// and just-in-time checkpoints are newer, hence bad) and restarts from storage, any strategy.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/reliability/degradation.hpp"
#include "sim/reliability/failure_process.hpp"

namespace sim::reliability {

enum class Strategy { CHECKPOINT_RESTART, IN_MEMORY_CHECKPOINT, JUST_IN_TIME_CHECKPOINT, SPARES, CONTINUING };

struct JobParams {
  int64_t nodes = 1;
  Seconds step_time;  // failure-free step time; > 0 rounds intervals up to whole steps (0: no rounding)
  Seconds interval;   // compute time between storage checkpoints (τ); +infinity: never checkpoint
  Seconds write;      // blocking storage checkpoint write (δ)
  Seconds detection, restart, reload;       // u0 = detection + restart + reload
  Seconds planned_every, planned_duration;  // planned maintenance; planned_every = 0: none
  Strategy strategy = Strategy::CHECKPOINT_RESTART;
  // IN_MEMORY_CHECKPOINT: a checkpoint to peers' host memory every memory_interval of compute
  // (rounded up to whole steps; `interval`, the storage one, is rounded up to whole memory
  // intervals), blocking for memory_write; reload from peers in memory_reload. Node n's shard is
  // held by the `replicas` nodes of its group, n / replicas.
  Seconds memory_interval, memory_write, memory_reload;
  int64_t replicas = 2;
  // JUST_IN_TIME_CHECKPOINT: dp data-parallel replicas; a checkpoint taken at the failure from a
  // surviving one costs jit_cost (save + restore, in place of the reload).
  int64_t dp = 1;
  Seconds jit_cost;
  // SPARES: a pool of `spares` nodes; a spare joins in `swap` (in place of the restart); a failed
  // node returns to the pool `repair` after its failure.
  int64_t spares = 0;
  Seconds swap, repair;  // repair: also CONTINUING's
  // CONTINUING: the tables of what the job keeps (not owned; must outlive the trial), and the costs.
  const Degradation* degradation = nullptr;
  Seconds pause, rejoin, warning;
  bool loses_step = true;
  // Asynchronous storage checkpoints.
  bool async = false;
  Seconds snapshot;
  double background_slowdown = 0;  // in [0, 1)
  // The strategy's failure-free throughput over the baseline plan's (< 1 when the strategy slows
  // the healthy step, as redundant computation does): scales goodput, not the timeline.
  double goodput_scale = 1;
};

enum class StopMode { HORIZON, WORK };

struct Stop {
  StopMode mode = StopMode::HORIZON;
  Seconds amount;                // HORIZON: wall-clock time; WORK: useful compute to finish
  Seconds wall_cap{3.15576e10};  // WORK: give up after this wall time (1000 years)
};

struct TimeLost {
  Seconds detection, restart, reload;
  Seconds lost_work;          // compute and partial checkpoint writes thrown away by failures
  Seconds checkpoint_writes;  // completed writes (and the one in progress at the horizon)
  Seconds planned;            // planned maintenance itself (its restart and reload count above)
  Seconds degraded;           // CONTINUING: the throughput lost while running with nodes down
  Seconds total() const { return detection + restart + reload + lost_work + checkpoint_writes + planned + degraded; }
  TimeLost& operator+=(const TimeLost& o);
};

struct TrialResult {
  Seconds wall;                     // HORIZON: the horizon; WORK: time of the last checkpoint (or wall_cap)
  Seconds useful;                   // compute kept, in seconds of the failure-free step
  bool finished = true;             // WORK: the work was done before wall_cap
  int64_t unexpected = 0;           // failures before the stop, while running or down
  int64_t planned = 0;              // planned maintenance taken
  std::vector<Seconds> recoveries;  // each recovery's duration, failure → running again
  TimeLost lost;
};

// The interval the timeline uses: `interval` rounded up to whole steps when step_time > 0.
Seconds effective_interval(const JobParams& job);

// One trial; draws from `failures` (which it advances) until the stop. Durations must be ≥ 0 and
// the interval > 0 (std::logic_error otherwise: the scenario parser checks them first).
TrialResult run_trial(const JobParams& job, const Stop& stop, FailureProcess& failures);

}  // namespace sim::reliability
