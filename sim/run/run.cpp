#include "sim/run/run.hpp"

#include <algorithm>
#include <utility>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/error.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/plan/resource_estimate.hpp"
#include "sim/scenario/costs.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"

namespace sim {

SimulationBudget simulation_budget(const EngineOptions& opt) {
  SimulationBudget b;
  b.full_fidelity = opt.full_fidelity;
  b.max_memory = opt.max_memory;
  b.max_wall = Seconds(opt.sim_wall_limit_s > 0 ? opt.sim_wall_limit_s
                                                : std::max(DEFAULT_WALL_LIMIT_S, opt.deadline.remaining_ms() / 1000.0));
  b.wall_option = opt.sim_wall_option;
  return b;
}

CheckedRun check_run(Scenario& s, const EngineOptions& opt) {
  ComputeModel cm(s.cluster.device, s.training.precision);
  // Refuses (InputError) a plan whose simulation would pass the budget, before the engine starts.
  // Over memory, it plans the smallest candidate (reported as not fitting) unless --strict-memory.
  CheckedRun c{resolve_plan(s, cm, opt.deadline, simulation_budget(opt),
                            opt.strict_memory ? OverMemory::REFUSE : OverMemory::RUN),
               Seconds(0)};
  // The estimate prices a healthy step; slow components make it at most their worst slowdown
  // longer, the bound the reliability budget is checked on before anything is simulated.
  if (s.reliability)
    c.reliability_wall =
        check_job_reliability(s, c.plan.estimated_step * s.step_faults.worst_slowdown(), c.plan.memory, opt);
  return c;
}

RunResult run_scenario(Scenario s, const EngineOptions& opt) {
  RunResult r;
  ComputeModel cm(s.cluster.device, s.training.precision);
  CheckedRun checked = check_run(s, opt);
  r.plan = std::move(checked.plan);
  r.estimated_reliability_wall = checked.reliability_wall;
  r.scenario = s;
  r.full_fidelity = opt.full_fidelity;
  if (s.step_faults.empty()) {
    r.engine = simulate_step(s, *r.plan.pipeline, opt);
  } else {
    const StepFaults& faults = s.step_faults;
    auto simulate_with = [&](StepFaults f) {
      Scenario variant = s;
      variant.step_faults = std::move(f);
      return simulate_step(variant, *r.plan.pipeline, opt);
    };
    r.engine = simulate_with(faults.slow_only());
    StepFaultsResult f;
    f.nccl_timeout = faults.nccl_timeout;
    if (faults.has_slow()) f.healthy_step_time_s = simulate_with(faults.healthy()).step.value;
    if ((f.failure = faults.failure())) {
      // A failure splits the rank classes (DESIGN.md "Fidelity and scale"): every GPU is simulated
      // when that fits the run's budget; folded classes otherwise (engine.hpp "Faults").
      EngineOptions fail_opt = opt;
      if (!opt.full_fidelity && s.cluster.gpus <= MAX_FULL_FIDELITY_GPUS) {
        SimulationBudget full = simulation_budget(opt);
        full.full_fidelity = true;
        const Estimate timeline = estimate_step(s, *r.plan.pipeline, CommCosts(s));
        fail_opt.full_fidelity = within(
            estimate_resources(s, engine_shape(s, &r.plan.pipeline->steps), r.plan.pipeline->steps, timeline, true),
            full);
      }
      f.full_fidelity = fail_opt.full_fidelity;
      f.outcome = simulate_step(s, *r.plan.pipeline, fail_opt).failure;
      SIM_ASSERT(f.outcome.has_value(), "the engine returned no outcome for a failure");
      if (f.outcome->stalled) f.lost_s = f.outcome->detected_at.value;
    }
    r.step_faults = f;
  }
  const auto& g = r.plan.pipeline->graph;

  const double replicas = double(s.plan.tp * s.plan.cp * s.plan.dp);
  double model = 0, hardware = 0, causal = 0;
  for (size_t v = 0; v < boost::num_vertices(g); ++v) {
    model += g[v].model_flops.value * replicas;
    causal += g[v].causal_flops.value * replicas;
    hardware += g[v].hardware_flops.value * replicas;
  }
  r.step_time_s = r.engine.step.value;
  r.tokens_per_s = double(s.training.global_batch * s.training.seq_len) / r.step_time_s;
  r.model_flops_per_step = model;
  r.hardware_flops_per_step = hardware;
  const double gpus = double(s.cluster.gpus);
  const double peak = cm.mfu_peak().value;
  r.model_tflops_per_gpu = model / r.step_time_s / gpus / 1e12;
  r.mfu = model / r.step_time_s / gpus / peak;
  r.causal_flops_per_step = causal;
  r.mfu_causal = causal / r.step_time_s / gpus / peak;
  r.hfu = hardware / r.step_time_s / gpus / peak;
  r.mfu_precision_peak = model / r.step_time_s / gpus / cm.peak().value;
  if (const auto costs = load_costs(default_data_dir()))
    r.network = network_cost(Fabric::of(s.cluster)->network(), *costs);

  // Breakdown of the busiest pipeline rank: its own work, its exposed communication, and the rest
  // of the step it spends idle. A slow GPU's kernels count at the pace of its rank class (its
  // slowest member, as the engine runs it: engine.hpp "Faults").
  std::vector<double> pace(static_cast<size_t>(s.plan.pp), 1.0);
  const Placement place(s.cluster, s.plan);
  for (const auto& e : s.step_faults.events)
    if (e.kind == StepFaultKind::SLOW && e.target == FaultTarget::GPU) {
      double& p = pace[static_cast<size_t>(place.coord(e.index).pp)];
      p = std::max(p, s.step_faults.slowdown(FaultTarget::GPU, e.index));
    }
  std::vector<Breakdown> per(static_cast<size_t>(s.plan.pp));
  for (size_t v = 0; v < boost::num_vertices(g); ++v) {
    const Task& t = g[v];
    const TaskSpan& sp = r.engine.spans[v];
    Breakdown& b = per[static_cast<size_t>(t.rank)];
    const double f = pace[static_cast<size_t>(t.rank)];
    b.rank = t.rank;
    if (t.kind == TaskKind::OPTIMIZER) {
      b.optimizer_s += t.compute.value * f;
    } else {
      b.compute_s += t.compute.value * f;
      b.gemm_s += t.gemm.value * f;
      b.attention_s += t.attention.value * f;
      b.elementwise_s += t.elementwise.value * f;
      b.host_wait_s += t.host_wait.value * f;
    }
    b.tp_comm_s += sp.tp;
    b.cp_comm_s += sp.cp;
    b.ep_comm_s += sp.ep;
    b.pp_comm_s += sp.p2p;
    b.dp_comm_s += sp.dp;
  }
  size_t busiest = 0;
  for (size_t i = 0; i < per.size(); ++i) {
    auto busy = [&](size_t k) {
      return per[k].compute_s + per[k].optimizer_s + per[k].tp_comm_s + per[k].cp_comm_s + per[k].ep_comm_s;
    };
    if (busy(i) > busy(busiest)) busiest = i;
  }
  Breakdown b = per[busiest];
  b.exposed_comm_s = b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.pp_comm_s + b.dp_comm_s;
  b.bubble_s = std::max(0.0, r.step_time_s - b.compute_s - b.optimizer_s - b.exposed_comm_s);
  r.breakdown = b;
  if (s.reliability) r.reliability = simulate_job_reliability(r, opt);
  return r;
}

}  // namespace sim
