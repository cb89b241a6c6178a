// A step's data-parallel flows as the engine launches them when it folds (sim/engine/replay.cpp,
// "Folding"): every one a rank class launches (dp_flow_set), those the fold keeps
// (fold_ring_flows) and their quotient by symmetry (quotient_flows).
#pragma once

#include <memory>
#include <vector>

#include "sim/comm/flow_quotient.hpp"
#include "sim/comm/ring_channels.hpp"
#include "sim/core/units.hpp"

namespace sim {

struct Scenario;

// A step's data-parallel flows (dp_flow_set), their shared links split (split_shared_links) and
// their fold (fold_ring_flows).
struct DpFold {
  RingFlowSet set;
  std::vector<DpFlow> flows;  // parallel to set.flows
  std::vector<DpVariant> variants;
  std::vector<int64_t> keep, component;  // per flow
  std::vector<FoldedSharedLink> shared;
  FlowQuotient quotient;  // of the kept flows
};
// The fold of scenario `s`'s flows, kept for the last inputs (one at a time: at 131,072 GPUs it
// holds about 100 MB): the planner's resource estimate folds a plan's flows before the engine runs
// it in a child process (sim/engine/fork_call.hpp), which inherits the result instead of folding
// again. `comm` is the scenario's plan on Fabric::of's fabric.
std::shared_ptr<const DpFold> fold_dp_flows(const Scenario& s, const CommPlan& comm, const Placement& place,
                                            const std::vector<std::vector<GradBucket>>& buffers,
                                            const std::vector<double>& capacity);

}  // namespace sim
