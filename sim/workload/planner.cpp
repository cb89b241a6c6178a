#include "sim/workload/planner.hpp"

#include <optional>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/comm_costs.hpp"
#include "sim/workload/estimate.hpp"

namespace sim {
namespace {

// Forward and backward tasks of one step. 2^20 of them took 0.7 GB and 19 s to plan and simulate
// (one candidate, 2-core development machine); the 1T GPT of Narayanan et al. 2021 Table 1 has
// 2 x 512 microbatches x 64 stages = 65,536.
constexpr int64_t MAX_TASKS = int64_t{1} << 20;

std::vector<int64_t> micro_batch_candidates(const Scenario& s) {
  if (!s.training.micro_batch.is_auto()) return {s.training.micro_batch.value};
  std::vector<int64_t> out;
  const int64_t per_replica = s.training.global_batch / s.plan.dp;
  for (int64_t b = 1; b <= per_replica && b <= 64; ++b)
    if (per_replica % b == 0) out.push_back(b);
  return out;
}

std::vector<int64_t> virtual_stage_candidates(const Scenario& s) {
  if (!s.plan.virtual_stages.is_auto()) return {s.plan.virtual_stages.value};
  std::vector<int64_t> out{1};
  for (int64_t v = 2; v * s.plan.pp <= s.model.layers; ++v)
    if (s.model.layers % (v * s.plan.pp) == 0) out.push_back(v);
  return out;
}

}  // namespace

ResolvedPlan resolve_plan(Scenario& s, const ComputeModel& cm, const Deadline& deadline) {
  std::optional<ResolvedPlan> best;
  int64_t tried = 0;
  MemoryEstimate smallest;
  bool any = false;
  int64_t over_limit = 0, over_m = 0, over_v = 0;  // the smallest fitting candidate over MAX_TASKS
  const Schedule given = s.plan.schedule;
  for (int64_t v : virtual_stage_candidates(s)) {
    StageLayout layout = make_stage_layout(s.model, s.plan, v, s.file);
    for (int64_t b : micro_batch_candidates(s)) {
      deadline.check();
      const int64_t m = s.training.global_batch / (s.plan.dp * b);
      if (v > 1 && m % s.plan.pp != 0) continue;
      Scenario trial = s;
      trial.training.micro_batch.value = b;
      trial.plan.virtual_stages.value = v;
      trial.plan.schedule = v > 1 ? Schedule::INTERLEAVED : (given == Schedule::INTERLEAVED ? Schedule::ONE_F_ONE_B : given);
      MemoryEstimate mem = estimate_memory(trial, layout, b);
      ++tried;
      if (!any || mem.peak < smallest.peak) smallest = mem;
      any = true;
      if (!mem.fits) continue;
      // Bounded by the parser: m <= 2^24, v <= 2^12, pp <= 2^20, so no overflow.
      const int64_t tasks = 2 * m * v * s.plan.pp;
      if (tasks > MAX_TASKS) {
        if (over_limit == 0 || tasks < over_limit) over_limit = tasks, over_m = m, over_v = v;
        continue;
      }
      // `new Pipeline(prvalue)` constructs in place (C++17 guaranteed elision): no graph copy.
      std::shared_ptr<const Pipeline> pipe(new Pipeline(build_pipeline(trial, layout, b, cm)));
      Seconds step = estimate_step(trial, *pipe, CommCosts(trial)).step;
      if (!best || step < best->estimated_step) best = ResolvedPlan{b, v, layout, pipe, mem, step, 0};
    }
  }
  if (!any)
    throw InputError(s.file, "/parallelism/virtual_stages",
                     "no virtual-stage count gives a microbatch count divisible by pp=" + std::to_string(s.plan.pp),
                     "global_batch/(dp*micro_batch) divisible by pp, or virtual_stages 1");
  if (!best && over_limit > 0)
    throw InputError(s.file, "/training/global_batch",
                     "a step of " + std::to_string(over_limit) + " tasks (2 * " + std::to_string(over_m) +
                         " microbatches * pp=" + std::to_string(s.plan.pp) + " * virtual_stages=" +
                         std::to_string(over_v) + ") is more than the limit of " + std::to_string(MAX_TASKS),
                     "fewer microbatches per step: a smaller global_batch, or a larger dp or micro_batch");
  if (!best) {
    bool fixed = !s.training.micro_batch.is_auto();
    throw InputError(s.file, fixed ? "/training/micro_batch" : "/parallelism",
                     "the plan needs " + format_bytes(smallest.peak) + " per GPU but " + s.cluster.device.name +
                         " has " + format_bytes(smallest.capacity),
                     "a plan that fits: more tp or pp, recompute, ZeRO, or a smaller micro_batch");
  }
  best->candidates_tried = tried;
  s.training.micro_batch.value = best->micro_batch;
  s.plan.virtual_stages.value = best->virtual_stages;
  if (best->virtual_stages > 1) s.plan.schedule = Schedule::INTERLEAVED;
  else if (s.plan.schedule == Schedule::INTERLEAVED) s.plan.schedule = Schedule::ONE_F_ONE_B;
  return *best;
}

}  // namespace sim
