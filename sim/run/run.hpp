// One scenario end to end: resolve "auto" settings, simulate the step on the engine, and derive
// the report's metrics (DESIGN.md "Report").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/plan/planner.hpp"
#include "sim/run/job_reliability.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/network_cost.hpp"

namespace sim {

struct Breakdown {
  double compute_s = 0;      // forward/backward kernels (including recompute), of which:
  double gemm_s = 0;         //   linear layers
  double attention_s = 0;    //   attention core
  double elementwise_s = 0;  //   norms, activations, residuals, embedding, loss
  double host_wait_s = 0;    //   the GPU waiting for the host to launch kernels shorter than their launches
  double optimizer_s = 0;
  double tp_comm_s = 0;       // tensor-parallel collectives (not overlapped)
  double cp_comm_s = 0;       // context-parallel K/V exchange (not overlapped)
  double ep_comm_s = 0;       // expert-parallel token dispatch and combine (not overlapped)
  double pp_comm_s = 0;       // pipeline transfers on the critical rank
  double dp_comm_s = 0;       // data-parallel gradient reduction (exposed)
  double exposed_comm_s = 0;  // tp + cp + ep + pp + dp
  double bubble_s = 0;        // idle: waiting for other stages
  int64_t rank = 0;           // the pipeline rank the breakdown describes (the busiest)
};

// The scenario's `step_faults` (engine.hpp, "Faults"). The step itself (step_time_s and every
// metric) is simulated with the slow events only: it is the step the job runs at, before and after
// a failure's recovery. Each other simulation runs only when it differs from that one.
struct StepFaultsResult {
  Seconds nccl_timeout;
  std::optional<double> healthy_step_time_s;  // without any fault; when there is a slow event
  std::optional<StepFaultEvent> failure;      // the "fail" event
  std::optional<StepFaultOutcome> outcome;    // what it did (failure only)
  bool full_fidelity = false;                 // whether the failure was simulated for every GPU
  // The step is redone after recovery, so every second of it up to detection is lost:
  // detected_at when the failure stalled the step, 0 when it had no effect.
  double lost_s = 0;
};

struct RunResult {
  Scenario scenario;  // with auto settings resolved
  ResolvedPlan plan;
  EngineResult engine;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double model_flops_per_step = 0;
  double causal_flops_per_step = 0;  // Task::causal_flops, over the step
  double hardware_flops_per_step = 0;
  double model_tflops_per_gpu = 0;
  double mfu = 0, hfu = 0;        // against the device's dense BF16 peak (ComputeModel::mfu_peak)
  double mfu_precision_peak = 0;  // against the dense peak of the precision the run computes in
  double mfu_causal = 0;          // causal_flops_per_step over the dense BF16 peak
  Breakdown breakdown;
  bool full_fidelity = false;
  std::optional<JobReliability> reliability;    // when the scenario has failures
  Seconds estimated_reliability_wall;           // of its trials and degraded plans (job_reliability.hpp); 0 without
  std::optional<StepFaultsResult> step_faults;  // when the scenario's step_faults has events
  // The scale-out network's parts and what they cost (topologies/costs/network.json; none without it).
  std::optional<NetworkCost> network;
};

RunResult run_scenario(Scenario s, const EngineOptions& opt = {});

// Every check a run makes before it simulates anything: the plan resolved within the simulation
// budget (planner.hpp; `s` gets its "auto" settings), then, with failures, check_job_reliability
// on the plan's estimated step (job_reliability.hpp). run_scenario starts with it and `trainsim
// check` runs only it, so check accepts what run would start.
struct CheckedRun {
  ResolvedPlan plan;
  Seconds reliability_wall;  // check_job_reliability's estimated wall time; zero without failures
};
CheckedRun check_run(Scenario& s, const EngineOptions& opt = {});

// What a run's simulation may use: --max-memory, and sim_wall_limit_s of estimated time when set,
// else DEFAULT_WALL_LIMIT_S or the
// --max-wall time left when that is longer (sim/plan/resource_estimate.hpp).
SimulationBudget simulation_budget(const EngineOptions& opt);

}  // namespace sim
