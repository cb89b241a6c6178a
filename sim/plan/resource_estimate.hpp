// What simulating one step of a plan will cost this machine, predicted before the engine starts:
// the simulation process's peak resident memory and its wall time, from the counts of what the
// engine creates (sim/engine/engine.hpp):
//
//   hosts       the fabric's route ends: GPU ports + NIC ports (+ a pod-crossing twin per NIC when
//               oversubscribed; sim/topology/fabric.hpp)
//   actors      pipeline ranks, or every GPU with full fidelity
//   tasks       slots of the step program (step_program.hpp), the vertices of its task graph
//   task runs   tasks x the ranks that run each (1 per class; tp*cp*dp at full fidelity)
//   flows       pipeline transfers (one per data edge and run) + data-parallel ring flows
//               (channels x dp x cp per ring, tp rings per rank, per gradient bucket or once; at
//               class fidelity without a failure, only those the engine keeps after folding
//               copies by symmetry: a few per rank when its rings' links are disjoint)
//   live flows  the flows of tensor- and context-parallel collectives that leave the scale-up
//               domain, which the engine runs live under contention (replay.cpp, run_live): each
//               use of one, per rank class, or per group at full fidelity
//   peak flows  ring flows launched and not yet waited for at the busiest moment: a rank launches
//               all of its rings (or buckets) before it waits for them
//
//   folded ring flows  every ring flow of one launch per rank, when the engine folds them: their
//               routes and groups, held through the step
//   fold links  the links of those flows' routes: the planner folds them once, whatever the
//               fidelity (EngineShape::fold_links)
//   coupled pairs  of the flows the fold keeps (one per cell of its quotient), those that share
//               links are one component: the sum over components of their flows squared
//
//   in-flight scans  over the ends of the gradient-reduction flows, the flows of every rank in
//               flight then (from the closed-form timeline's launches, estimate.hpp): SimGrid walks
//               the maestro's whole list of detached flows to unlink each finished one (a step
//               that does not fold: full fidelity, a failure in the step)
//
//   fluid scans  when the step folds, its flows move in the engine's fluid network, which solves a
//               component again at each of its events: over the launches' starts and ends and the
//               pipeline transfers, the flows in flight in their component (every rank's where the
//               fold's components join ranks, as trees across an oversubscribed pod uplink do)
//
//   memory = base + per host x hosts + per task x tasks + per actor x actors + per flow x peak flows
//            + per folded ring flow x folded ring flows
//
//   wall   = per host x hosts + per transfer x flows (pipeline, ring and probe; live flows at their
//            own price) + per scan x in-flight scans + per actor run x actors x task runs
//            + per fold link x fold links + per coupled pair x coupled pairs,
//            when the step does not fold; when it does, per fabric end x hosts + per transfer x
//            pipeline transfers + per flow x ring flows + per fold link x fold links
//            + per fluid scan x fluid scans + the actor and live terms
//
// Every flow the engine starts is priced once, whatever its kind; where flows share links the
// engine's cost grows with their square (coupled pairs), and where one actor holds many flows in
// flight, with the square of its backlog (in-flight scans). Every coefficient was measured on the
// 2-core development machine (resource_estimate.cpp lists the runs and the fit; scripts/estimate-check
// measures them again): wall estimates are within a factor of three of the CPU time of every shipped
// config, validation row and bench case (a scenario with failures adds its reliability
// simulation's estimate, job_reliability.hpp).
// A faster or idle machine finishes sooner, a loaded one later; memory is the same.
//
// A run is refused (InputError, one line, exit code 2) when its memory estimate passes --max-memory
// (default: half of this machine's memory) or its wall estimate passes the time limit (2 minutes,
// or --max-wall when that is longer).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"

namespace sim {

struct Scenario;
struct StepProgram;
struct StageLayout;
struct Estimate;

struct SimulationSize {
  int64_t hosts = 0;
  int64_t actors = 0;
  int64_t tasks = 0;
  int64_t task_runs = 0;
  double flows = 0;  // doubles: a rejected plan's counts may pass 2^63
  double peak_flows = 0;
  double ring_flows = 0;         // data-parallel ring flows the engine launches (also in flows)
  double folded_ring_flows = 0;  // ring flows the engine folds (one launch per rank): its workspace
  double live_flows = 0;         // of live tensor- and context-parallel collectives (also in flows)
  double coupled_pairs = 0;      // the fold's simulated components: the sum of their flows squared
  double fold_links = 0;         // the fold's work (EngineShape::fold_links)
  double in_flight_scans = 0;    // over the ring flows' ends, every rank's flows in flight then
  bool fluid = false;            // the engine folds: its step's flows move in its fluid network
  double fluid_scans = 0;        // over the launches' starts and ends, the flows in flight in their component
};

struct ResourceEstimate {
  SimulationSize size;
  Bytes memory;              // peak resident memory of the simulation process (which shares the planner's)
  Seconds wall;              // wall time of the simulation on the development machine
  bool lower_bound = false;  // from the plan alone: peak flows may be more
};

// What a run may use. Zero: no bound.
struct SimulationBudget {
  bool full_fidelity = false;
  Bytes max_memory;
  Seconds max_wall;
  const char* wall_option = "--max-wall";  // what raises max_wall, for the message
};

// What the cluster and the plan's degrees decide (the same for every micro-batch and virtual-stage
// count): the platform's hosts, and the ring flows of one data-parallel launch per pipeline rank:
// all of them (full fidelity, or a failure in the step) and those the engine keeps when it folds
// copies by symmetry at class fidelity (ring_channels.hpp, fold_ring_flows).
struct EngineShape {
  int64_t hosts = 0;
  std::vector<double> rank_flows;
  std::vector<double> folded_rank_flows;
  double coupled_pairs = 0;  // over the components the fold simulates, the square of their flows
  bool coupled = false;      // a component holds flows of several pipeline ranks
  // The fold's work, done whatever the fidelity (the planner folds before it knows whether the
  // engine will): over every gradient-reduction flow of one launch per rank, the links of its
  // route after the split (shared_links.hpp). Before the fold, a lower bound: one per flow.
  double fold_links = 0;
};
// With the step's program, the fold of the algorithms its gradient buffers run; without, of the
// one NCCL runs for the largest buffers (1 TiB: bandwidth decides, and the ring, which folds best,
// or NVLS wins), a lower bound.
EngineShape engine_shape(const Scenario& s, const StepProgram* p = nullptr);
// The shape before the fold: the platform's hosts and every ring flow (rank_flows), none yet kept
// (folded_rank_flows all 0, no coupled pair). The fold only adds kept flows and coupled pairs, so
// at class fidelity the estimate from it is a lower bound of engine_shape's, and at full fidelity
// (nothing folds) the same; it costs one pass over the data-parallel groups, not the fold's routes.
EngineShape counted_shape(const Scenario& s);

// Before the step program is built: `microbatches` and the layout's virtual stages give the task
// count; peak flows are one rank's (a lower bound: ranks' reductions may overlap).
ResourceEstimate estimate_resources(const Scenario& s, const EngineShape& shape, const StageLayout& layout,
                                    int64_t microbatches, bool full_fidelity);
// With the step's program and its closed-form timeline (estimate.hpp): peak flows from the ranks'
// reductions that overlap in time.
ResourceEstimate estimate_resources(const Scenario& s, const EngineShape& shape, const StepProgram& p,
                                    const Estimate& timeline, bool full_fidelity);

// What simulating any plan on the scenario's cluster costs at the least, whatever its plan: the
// platform's hosts and one actor (every GPU at full fidelity), no task and no flow. A budget this
// passes refuses every plan, so the planner and `trainsim search` check it before any O(GPUs) work.
ResourceEstimate platform_floor(const Scenario& s, bool full_fidelity);

// Whether the estimate fits the budget.
bool within(const ResourceEstimate& e, const SimulationBudget& b);
// Throws the InputError that names the estimate, the limit it passes and what to change; does
// nothing when within the budget.
void check_budget(const Scenario& s, const ResourceEstimate& e, const SimulationBudget& b);

// The time limit without --max-wall, and the default --max-memory: half of this machine's
// physical memory (sysconf), or of the cgroup's limit when that is smaller.
constexpr double DEFAULT_WALL_LIMIT_S = 120;
Bytes machine_memory();
Bytes default_max_memory();

}  // namespace sim
