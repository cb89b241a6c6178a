// Whether a plan suits a continuing recovery strategy (reconfigure, redundant, reroute, swarm), and
// how it divides into the units a failure takes down (sim/reliability/degradation.hpp), from the
// plan and the cluster alone: no step is simulated. `trainsim check` and the run
// (degraded_plans.hpp, before it simulates the degraded plans) both ask it, so check refuses
// exactly what the run would.
//   every strategy  the plan fills the cluster; nodes hold whole stages, or stages whole nodes
//   redundant       one stage per node group and at least two per replica; no virtual stages
//   reroute, swarm  data-parallel peers (dp >= 2) to take a failed unit's work: with dp = 1 every
//                   failure stops the only pipeline, which is checkpoint-restart
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/error.hpp"
#include "sim/reliability/degradation.hpp"

namespace sim {

struct Scenario;

struct ContinuingLayout {
  reliability::Degradation degradation;  // kind, nodes, dp and the units; no rate tables yet
  int64_t stages_per_unit = 1;
};

// `s` is resolved ("auto" settings chosen) and its recovery kind a continuing one; an InputError
// at /recovery/kind when the plan does not suit it.
ContinuingLayout continuing_layout(const Scenario& s);

// The InputError of a plan that does not suit the scenario's strategy, at /recovery/kind.
InputError unsuited(const Scenario& s, const std::string& what, const std::string& expected);

}  // namespace sim
