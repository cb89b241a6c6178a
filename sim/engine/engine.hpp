// The SimGrid replay of one training step (the only layer that includes SimGrid; this header
// exposes none of it).
//
// Platform: the cluster's network from the topology layer (sim/topology/builders.hpp) as one
// SimGrid star zone (platform.cpp): per GPU a host on its NVLink port, per NIC a host for each
// tier of switch where it can meet another NIC, routed over its port and the uplinks on the way
// (those that can bind: an oversubscribed pod's uplink). Links carry line rate x the device's
// achieved fraction (busbw / line rate). Every transfer is the communication plan's
// (sim/comm/comm_plan.hpp): NCCL's algorithm and protocol for the collective's size and
// group, its flows, and its latency terms, added after the flows end.
//
// Replay: one actor per rank class (pipeline rank) -- or per GPU with full fidelity -- walks its
// program: waits for the activations/gradients it needs (the transfer starts when both sides
// are ready, as Megatron's batched send/recv), executes its kernels, runs its tensor-parallel
// collectives (each distinct one simulated once as its flows on the real links and cached),
// reduces gradients over data parallel as NCCL does (every member's flows on the fabric, so it
// sees the whole collective; folded classes launch one flow per class of identical, isolated
// copies -- replay.cpp, "Folding", says when that is exact), and steps the optimizer.
// Folded classes scale a transfer by the number of class members sharing its NIC.
//
// Faults inside the step (the scenario's `step_faults`, sim/scenario/step_faults.hpp):
// - A slow GPU (factor f): its host computes at 1/f of its speed at full fidelity. Folded, its
//   rank class computes at the pace of its slowest member: the class's tensor-parallel members
//   wait for each other at every collective and its data-parallel members at the gradient
//   reduction, so to first order the whole class runs f times slower. The other pipeline stages
//   then wait on it: in steady state a pipeline runs at its slowest stage's pace.
// - A slow NIC (factor f): its link carries 1/f of its bandwidth. Folded, a class transfer is
//   simulated on its representative's NICs; when another member's NIC is the slow one, the
//   transfer carries f times its bytes (the members wait for the slowest). Gradient-reduction
//   rings launch every member's flows and see the slow link directly. Tensor- and
//   context-parallel collectives keep the cost probed once on the first group (before faults
//   matter: those groups normally stay inside a node, where no NIC is used).
// - A failure at `at` (seconds after the step starts; at most one per step): a daemon actor turns
//   the GPU's host off (SimGrid kills the actor on it at full fidelity and fails the transfers
//   to or from it) or the NIC's link (failing the flows through it). From then on a rank whose
//   receive, send, collective or gradient reduction needs the failed component -- a GPU among its
//   peers in it, or the NIC on a path that leaves a node -- stalls: it waits for good, as NCCL
//   does until its watchdog fires. SimGrid's NetworkFailureException / HostFailureException from
//   a transfer in flight is caught and becomes the same stall. Folded, the class stalls at its
//   first such operation when any member's needs the component (its other data-parallel replicas
//   would run on to the gradient reduction; full fidelity splits the class and is exact, which is
//   why sim/run simulates a failure at full fidelity whenever that fits the run's budget).
//   When every surviving actor waits, SimGrid finds the deadlock and ends the run (a deadlock
//   with no stalled rank behind it is an error: work that could never finish). The outcome:
//   `stalled_at` = the latest start of a blocking operation among the unfinished ranks (never
//   before the failure) and `detected_at` = stalled_at + nccl_timeout. When the step ends before
//   the failure or never needs the failed component, `stalled` is false: no effect on the step.
//
// SimGrid keeps one engine per process, so each call runs in a forked child process, which the
// parent stops (and reports as an InputError) when its resident memory passes `max_memory`.
// Full fidelity is limited to 65,536 GPUs (an InputError beyond), for the actors' memory; what a
// plan would cost is estimated before it gets here (workload/resource_estimate.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "sim/core/deadline.hpp"
#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"

namespace sim {

struct Scenario;
struct Pipeline;

// One actor per GPU at full fidelity: 65,536 actors took 1.3 GB in a bare ring benchmark
// (SimGrid 3.32, one actor per GPU, mailbox ring), and ours each replay a whole rank program.
constexpr int64_t MAX_FULL_FIDELITY_GPUS = 65536;

struct EngineOptions {
  EngineOptions() = default;
  explicit EngineOptions(bool full, Deadline d = {}, Bytes memory = Bytes(0))
      : full_fidelity(full), deadline(std::move(d)), max_memory(memory) {}

  bool full_fidelity = false;  // one actor per GPU instead of one per rank class
  Deadline deadline;           // --max-wall: planning and the engine's child stop when it passes
  Bytes max_memory;            // --max-memory: the estimate's bound and the child's; 0 for none
  // A test and benchmark knob: false launches every gradient-reduction ring flow instead of
  // folding the copies that symmetry makes redundant (replay.cpp, "Folding"); the step is the same.
  bool fold_rings = true;
  // The estimated simulation time a run may take: when positive, this (search's --max-sim-wall);
  // otherwise DEFAULT_WALL_LIMIT_S or the --max-wall time left (run.hpp, simulation_budget).
  double sim_wall_limit_s = 0;
  const char* sim_wall_option = "--max-wall";  // what raises it, for the message
  // --strict-memory: a plan over the device's memory (sim/workload/memory_budget.hpp) is refused, an
  // InputError, instead of simulated and reported as not fitting.
  bool strict_memory = false;
  // Called as the reliability simulation's trials finish (done, total) -- sim/run, for a progress
  // line; never per event. None by default.
  std::function<void(int64_t, int64_t)> trial_progress;
};

struct TaskSpan {
  double start = 0;  // after its inputs arrived
  double end = 0;
  double wait = 0;  // time blocked on inputs: upstream work (bubble) plus transfers
  double p2p = 0;   // of which the transfers themselves (exposed pipeline communication)
  double tp = 0;    // tensor-parallel collectives inside the task
  double cp = 0;    // context-parallel collectives inside the task
  double ep = 0;    // expert-parallel collectives inside the task (an MoE layer's dispatch and combine)
  double dp = 0;    // data-parallel gradient reduction
  // The seconds of the collectives over `group`.
  double& of(CommGroup group) { return group == CommGroup::TP ? tp : group == CommGroup::CP ? cp : ep; }
  double collectives() const { return tp + cp + ep; }
};

// What a failure inside the step did; seconds from the step's start.
struct StepFaultOutcome {
  Seconds failed_at;     // the scenario's `at`
  bool stalled = false;  // false: the step ended first, or never needed the failed component
  Seconds stalled_at;    // when the job stalled (>= failed_at); when stalled
  Seconds detected_at;   // stalled_at + nccl_timeout, the NCCL watchdog's abort; when stalled
};

struct EngineResult {
  // With a stalling failure: the last task end before the stall (not a step time).
  Seconds step;
  std::vector<TaskSpan> spans;  // per task id, as seen by the class representative
  int64_t actors = 0;
  int64_t transfers = 0;                    // point-to-point and collective flows simulated
  std::optional<StepFaultOutcome> failure;  // when the scenario's step_faults has a "fail" event
  // When an optical circuit switch was dark, changing circuits (CommPlan::reconfiguration):
  // (from, to) seconds after the step's start.
  std::vector<std::pair<double, double>> dark;
};

EngineResult simulate_step(const Scenario& s, const Pipeline& p, const EngineOptions& opt = {});

}  // namespace sim
