// Resolves "auto" settings: every candidate (micro_batch dividing global_batch/dp; virtual stages
// that split the layers evenly, or leave the first and last virtual stage one layer short, and
// whose microbatch count is a multiple of pp) is priced by the
// fast estimate, candidates that do not fit in memory (memory_budget.hpp) are dropped, and the
// fastest remains (ties go to the smaller value). Fixed settings are taken as given. When no
// candidate fits, the one that needs the least memory is planned (its MemoryEstimate says it does
// not fit, and by how much), or, with OverMemory::REFUSE (--strict-memory, search's ranking), that
// is an InputError naming the offending setting; so is a plan whose every candidate that runs
// has more than 2^20 forward and backward tasks in a step (the limit that keeps
// a run within about a gigabyte and half a minute). With a budget, a candidate whose simulation
// would pass it (resource_estimate.hpp) is dropped too, before its step program is built when the
// plan alone shows it; a plan whose every such candidate passes it is an InputError naming the
// estimate and the limit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sim/core/deadline.hpp"
#include "sim/core/units.hpp"
#include "sim/plan/resource_estimate.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"

namespace sim {

struct Scenario;
class ComputeModel;

// What the planner does when no candidate fits in memory (memory_budget.hpp).
enum class OverMemory {
  RUN,     // plan the candidate that needs the least memory, reported as not fitting
  REFUSE,  // an InputError (--strict-memory; search ranks fitting plans only)
};

struct ResolvedPlan {
  int64_t micro_batch = 1;
  int64_t virtual_stages = 1;
  StageLayout layout;
  // The chosen candidate's task graph, built by resolve_plan alone: candidates are priced from their
  // step programs (step_program.hpp), and a search, which calls resolve_plan_below for every plan,
  // builds graphs only for the plans it simulates. Shared, not copied: a Boost adjacency_list has
  // no move constructor, so a copy of a 10^5-task graph would be made at every hand-over.
  std::shared_ptr<const Pipeline> pipeline;
  MemoryEstimate memory;
  Seconds estimated_step;
  int64_t candidates_tried = 0;
  ResourceEstimate resources;  // of simulating it, at the budget's fidelity (zero without a budget)
};

// `s` gets its auto fields replaced by the chosen values. Throws WallTimeExceeded between
// candidates once `deadline` has passed. The default budget bounds nothing.
ResolvedPlan resolve_plan(Scenario& s, const ComputeModel& cm, const Deadline& deadline = {},
                          const SimulationBudget& budget = {}, OverMemory over_memory = OverMemory::RUN);

// The same without the graph (`pipeline` empty), for a search that only wants plans estimated
// faster than `cutoff`: candidates whose lower bound (step_bound.hpp, step_lower_bound) is at least
// the cutoff are not built, and when that leaves none of those that fit, the result is empty (`s`
// unchanged). The errors are resolve_plan's. With an infinite cutoff it chooses as resolve_plan.
// When empty, `lowest_bound` (if given) receives the lowest of those bounds: the plan matters
// again only below it.
std::optional<ResolvedPlan> resolve_plan_below(Scenario& s, const ComputeModel& cm, Seconds cutoff,
                                               const Deadline& deadline = {}, const SimulationBudget& budget = {},
                                               Seconds* lowest_bound = nullptr,
                                               OverMemory over_memory = OverMemory::RUN);

}  // namespace sim
