// Resolves "auto" settings: every candidate (micro_batch dividing global_batch/dp; virtual stages
// that split the layers evenly and whose microbatch count is a multiple of pp) is priced by the
// fast estimate, candidates that do not fit in memory are dropped, and the fastest remains (ties
// go to the smaller value). Fixed settings are taken as given. A plan whose every candidate
// overflows the GPU's memory is an InputError naming the offending setting.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/core/units.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"

namespace sim {

struct Scenario;
class ComputeModel;

struct ResolvedPlan {
  int64_t micro_batch = 1;
  int64_t virtual_stages = 1;
  StageLayout layout;
  // Shared, not copied: a Boost adjacency_list has no move constructor, so a copy of a 10^5-task
  // graph would be made at every hand-over.
  std::shared_ptr<const Pipeline> pipeline;
  MemoryEstimate memory;
  Seconds estimated_step;
  int64_t candidates_tried = 0;
};

// `s` gets its auto fields replaced by the chosen values.
ResolvedPlan resolve_plan(Scenario& s, const ComputeModel& cm);

}  // namespace sim
