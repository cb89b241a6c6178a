// The plans a continuing recovery strategy (reconfigure, redundant, reroute, swarm) runs on after
// failures, simulated once per run by the step simulator and turned into the throughput tables of
// sim/reliability/degradation.hpp (never once per trial):
//   reconfigure  the pipeline template with j units fewer (pp − j · stages per unit, same layers,
//                micro-batches and dp), for j = 1 and 2; a template that does not fit in memory
//                cannot be formed (rate 0); for j > 2 the per-unit efficiency of j = 2 carries on.
//   redundant    Bamboo's eager redundant forward: each stage also runs its successor's forward,
//                first in its pipeline bubble and the rest on top (the failure-free step grows by
//                max(0, forward − bubble) of the busiest rank); after a failure, the plan with the
//                failed unit's layers merged into its predecessor (pp − 1 stages, one holding two
//                stages' layers), which must fit in memory (Bamboo's premise).
//   reroute      the plan with dp − d replicas carrying the same global batch (the micro-batches
//                per replica rounded up), for d = 1 and 2.
//   swarm        needs no other plan: its rate is the thinnest pool's share.
// Memory (sim/workload/memory_budget.hpp, the one verdict): the recovery, not the user, picks these
// plans, and a plan over the GPU's memory fails there when it needs more than the job already
// runs in. So a degraded plan that does not fit cannot run when it needs more reserved memory per
// GPU than the healthy plan; one that needs no more runs wherever the healthy plan runs (a healthy
// plan over memory is the user's to run, reported as such). With --strict-memory no plan over
// memory runs, degraded or not.
#pragma once

#include "sim/core/units.hpp"
#include "sim/reliability/degradation.hpp"

namespace sim {

struct RunResult;
struct Scenario;
struct EngineOptions;
struct MemoryEstimate;

struct ContinuingPlan {
  reliability::Degradation degradation;
  double step_s = 0;  // the strategy's failure-free step (redundant: with its extra forward)
};

// `healthy` is a run of the resolved scenario; the strategy is its recovery kind (a continuing
// one). Throws InputError when the plan does not suit the strategy (named in the message).
ContinuingPlan plan_continuing(const RunResult& healthy, const EngineOptions& opt);

// Everything plan_continuing would refuse, short of simulating: whether the plan suits the strategy
// (continuing_layout.hpp), and whether each degraded plan the strategy cannot do without -- the
// redundant merged plan, the rerouted ones -- passes run_scenario's checks (run.hpp, check_run:
// its simulation in the budget of `opt`, and memory as above against `healthy`, the healthy plan's).
// Each is refused with plan_continuing's line; a reconfigure template that cannot run is a rate of
// 0, not a refusal. `s` is resolved, its recovery kind a continuing one. Returns the estimated
// wall time of simulating those plans (a reconfigure's templates, simulated as failures reach
// them, are not counted).
Seconds check_continuing(const Scenario& s, const MemoryEstimate& healthy, const EngineOptions& opt);

}  // namespace sim
