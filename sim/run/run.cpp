#include "sim/run/run.hpp"

#include <algorithm>

#include "sim/cost/compute_model.hpp"

namespace sim {

SimulationBudget simulation_budget(const EngineOptions& opt) {
  SimulationBudget b;
  b.full_fidelity = opt.full_fidelity;
  b.max_memory = opt.max_memory;
  b.max_wall = Seconds(std::max(DEFAULT_WALL_LIMIT_S, opt.deadline.remaining_ms() / 1000.0));
  return b;
}

RunResult run_scenario(Scenario s, const EngineOptions& opt) {
  RunResult r;
  ComputeModel cm(s.cluster.device, s.training.precision);
  // Refuses (InputError) a plan whose simulation would pass the budget, before the engine starts.
  r.plan = resolve_plan(s, cm, opt.deadline, simulation_budget(opt));
  r.scenario = s;
  r.full_fidelity = opt.full_fidelity;
  r.engine = simulate_step(s, *r.plan.pipeline, opt);
  const auto& g = r.plan.pipeline->graph;

  const double replicas = double(s.plan.tp * s.plan.cp * s.plan.dp);
  double model = 0, hardware = 0;
  for (size_t v = 0; v < boost::num_vertices(g); ++v) {
    model += g[v].model_flops.value * replicas;
    hardware += g[v].hardware_flops.value * replicas;
  }
  r.step_time_s = r.engine.step.value;
  r.tokens_per_s = double(s.training.global_batch * s.training.seq_len) / r.step_time_s;
  r.model_flops_per_step = model;
  r.hardware_flops_per_step = hardware;
  const double gpus = double(s.cluster.gpus);
  const double peak = cm.peak().value;
  r.model_tflops_per_gpu = model / r.step_time_s / gpus / 1e12;
  r.mfu = model / r.step_time_s / gpus / peak;
  r.hfu = hardware / r.step_time_s / gpus / peak;

  // Breakdown of the busiest pipeline rank: its own work, its exposed communication, and the rest
  // of the step it spends idle.
  std::vector<Breakdown> per(static_cast<size_t>(s.plan.pp));
  for (size_t v = 0; v < boost::num_vertices(g); ++v) {
    const Task& t = g[v];
    const TaskSpan& sp = r.engine.spans[v];
    Breakdown& b = per[static_cast<size_t>(t.rank)];
    b.rank = t.rank;
    if (t.kind == TaskKind::OPTIMIZER) {
      b.optimizer_s += t.compute.value;
    } else {
      b.compute_s += t.compute.value;
      b.gemm_s += t.gemm.value;
      b.attention_s += t.attention.value;
      b.elementwise_s += t.elementwise.value;
    }
    b.tp_comm_s += sp.tp;
    b.cp_comm_s += sp.cp;
    b.pp_comm_s += sp.p2p;
    b.dp_comm_s += sp.dp;
  }
  size_t busiest = 0;
  for (size_t i = 0; i < per.size(); ++i) {
    auto busy = [&](size_t k) { return per[k].compute_s + per[k].optimizer_s + per[k].tp_comm_s + per[k].cp_comm_s; };
    if (busy(i) > busy(busiest)) busiest = i;
  }
  Breakdown b = per[busiest];
  b.exposed_comm_s = b.tp_comm_s + b.cp_comm_s + b.pp_comm_s + b.dp_comm_s;
  b.bubble_s = std::max(0.0, r.step_time_s - b.compute_s - b.optimizer_s - b.exposed_comm_s);
  r.breakdown = b;
  if (s.reliability) r.reliability = simulate_job_reliability(s, r.step_time_s, r.tokens_per_s, opt.trial_progress);
  return r;
}

}  // namespace sim
