// The parallel plans `trainsim search` considers for a scenario: every tensor-parallel degree
// that divides an NVLink domain's GPUs (a node's; a GB200 NVL72 rack's 72) and the model's heads,
// KV heads and FFN width; every pipeline degree that divides the GPUs left after tp and cp and is
// at most the layer count; data parallelism taking the rest, when it divides the global batch;
// sequence parallelism off and on (tp > 1); and each recompute setting (torchtitan's per-op
// checkpointing only when the scenario states it, where it can run). Context and expert
// parallelism, ZeRO, the gradient overlap and the precision stay as the scenario has them;
// micro_batch and virtual_stages are left to the planner ("auto"). The list is in a fixed order:
// tp, pp, sequence parallelism, recompute (none, selective, full, then op), each ascending.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario/plan.hpp"

namespace sim {

struct Scenario;

struct PlanChoice {
  int64_t tp = 1, pp = 1, dp = 1;
  bool sequence_parallel = false;
  Recompute recompute = Recompute::NONE;
};

std::vector<PlanChoice> plan_space(const Scenario& s);

}  // namespace sim
