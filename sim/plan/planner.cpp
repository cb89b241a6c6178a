#include "sim/plan/planner.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/error.hpp"
#include "sim/plan/circuit_design.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/plan/step_bound.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/placement.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/step_program.hpp"

namespace sim {
namespace {

// Forward and backward tasks of one step. 2^20 of them took 0.7 GB and 19 s to plan and simulate
// (one candidate, 2-core development machine); the 1T GPT of Narayanan et al. 2021 Table 1 has
// 2 x 512 microbatches x 64 stages = 65,536.
constexpr int64_t MAX_TASKS = int64_t{1} << 20;
// Tasks of all the candidates "auto" builds and prices: four of the largest. Planning takes
// 3-5 us per task (2^20 tasks: 5.1 s and 0.66 GB for `trainsim check`), so about 20 s. Without this
// limit, a scenario of 83,160 layers on pp 8 with both settings "auto" plans 120 candidates of
// 32.8 million tasks in all: 62 s.
constexpr int64_t MAX_PLANNED_TASKS = int64_t{1} << 22;

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
  // Counts that split the layers evenly, and those where the first and the last virtual stage each
  // take one layer fewer (stage_layout.hpp): Llama 3 interleaved 126 layers on 16 ranks so, the
  // first and last stage holding the embedding and the output layer (Llama 3 paper §3.3.2).
  std::vector<int64_t> out{1};
  if (s.plan.pp == 1) return out;  // no pipeline, no virtual stages
  // The zero-bubble schedules run one chunk per rank, ZB-V two in a V (1F1B's name leaves
  // interleaving open, as Megatron-LM's interleaving is an option of its 1F1B).
  if (s.plan.schedule_given && schedule_choice(s.plan.schedule).v_shape) return {2};
  if (s.plan.schedule_given && pipeline_schedule(s.plan.schedule).splits_backward) return out;
  for (int64_t v = 2; v * s.plan.pp <= s.model.layers; ++v) {
    const int64_t stages = v * s.plan.pp, short_by = (stages - s.model.layers % stages) % stages;
    if (short_by <= 2) out.push_back(v);
  }
  return out;
}

// Userbuffers, which tp_comm_overlap models (ops.hpp), exchange over NVLink: every tensor-parallel
// group must lie inside one NVLink domain.
void check_tp_comm_overlap(const Scenario& s) {
  if (!s.plan.tp_comm_overlap) return;
  const auto& pl = s.plan;
  const Placement place(s.cluster, pl);
  for (int64_t d = 0; d < pl.dp; ++d)
    for (int64_t r = 0; r < pl.pp; ++r)
      for (int64_t c = 0; c < pl.cp; ++c)
        for (int64_t t = 1; t < pl.tp; ++t)
          if (!place.same_domain(place.gpu({0, c, r, d}), place.gpu({t, c, r, d})))
            throw InputError(s.file, s.json_path("/parallelism/tp_comm_overlap"),
                             "needs every tensor-parallel group inside one NVLink domain (Transformer Engine's "
                             "userbuffers exchange over NVLink); tp=" +
                                 std::to_string(pl.tp) + " spans " + std::to_string(s.cluster.domain_gpus()) +
                                 "-GPU domains",
                             "tp dividing the NVLink domain's GPUs, with tp placed fastest, or no tp_comm_overlap");
}

std::optional<ResolvedPlan> resolve(Scenario& s, const ComputeModel& cm, Seconds cutoff, const Deadline& deadline,
                                    const SimulationBudget& budget, Seconds* lowest_bound, bool build_graph,
                                    OverMemory over_memory) {
  // First what each candidate would cost (closed forms, no program): which fit in memory, which are
  // within the task limit and, at a glance, the budget; then the step programs of those, in the same
  // order (so ties go to the smaller virtual-stage count, then micro-batch).
  struct Candidate {
    Scenario trial;
    size_t layout = 0;  // index in layouts
    MemoryEstimate mem;
    int64_t m = 0, tasks = 0;
  };
  check_tp_comm_overlap(s);
  // A direct-connect network designed with the plan: its designs (circuit_design.hpp), the first
  // applied until the estimate chooses among them (below).
  const std::vector<CircuitDesign> designs =
      s.cluster.scale_out.circuits_designed() ? circuit_designs(s) : std::vector<CircuitDesign>{};
  if (!designs.empty()) apply_design(s, designs.front());
  std::vector<StageLayout> layouts;
  std::vector<Candidate> build;
  int64_t tried = 0, planned_tasks = 0;
  std::optional<Candidate> smallest;  // the candidate that needs the least memory, of those that do not fit
  bool any = false, any_fits = false;
  int64_t over_limit = 0, over_m = 0, over_v = 0;  // the smallest fitting candidate over MAX_TASKS
  std::optional<ResourceEstimate> over_budget;     // the cheapest candidate whose simulation passes the budget
  auto note_over_budget = [&](const ResourceEstimate& e) {
    if (!over_budget || e.wall < over_budget->wall) over_budget = e;
  };
  const bool bounded = budget.max_memory.value > 0 || budget.max_wall.value > 0;
  // The fold's shape is O(GPUs) work: a candidate is first priced without its ring flows, then
  // with them counted but none kept by the fold (lower bounds, the second one pass over the
  // groups); when those bounds admit several candidates, the fold of the largest buffers is
  // computed once and prices each of them before its step program is built. A single candidate
  // goes straight to the fold of its own buffers (below), which the engine then reuses.
  if (bounded) check_budget(s, platform_floor(s, budget.full_fidelity), budget);
  EngineShape bare;
  if (bounded) bare.hosts = platform_floor(s, budget.full_fidelity).size.hosts;
  bare.rank_flows.assign(static_cast<size_t>(s.plan.pp), 0.0);
  std::optional<EngineShape> counted;
  const Schedule given = s.plan.schedule;
  const int64_t units = pipeline_schedule(given).splits_backward ? 3 : 2;  // a microbatch's units per chunk
  // A candidate that fits in memory (or, when none does and over-memory plans run, the smallest) is
  // planned when it is within the task limit and, at a glance, the budget.
  auto admit = [&](Candidate c) {
    const int64_t m = c.m, v = c.trial.plan.virtual_stages.value;
    // Bounded by the parser: m <= 2^24, v <= 2^12, pp <= 2^20, so no overflow.
    c.tasks = units * m * v * s.plan.pp;
    if (c.tasks > MAX_TASKS) {
      if (over_limit == 0 || c.tasks < over_limit) over_limit = c.tasks, over_m = m, over_v = v;
      return;
    }
    if (bounded)
      for (const int flows : {0, 1}) {  // none, counted
        if (flows == 1 && !counted) counted = counted_shape(s);
        const ResourceEstimate early =
            estimate_resources(c.trial, flows == 0 ? bare : *counted, layouts[c.layout], m, budget.full_fidelity);
        if (!within(early, budget)) {
          note_over_budget(early);
          return;
        }
      }
    planned_tasks += c.tasks;
    build.push_back(std::move(c));
  };
  for (int64_t v : virtual_stage_candidates(s)) {
    layouts.push_back(make_stage_layout(s.model, s.plan, v, s.file, s.pointer));
    const StageLayout& layout = layouts.back();
    for (int64_t b : micro_batch_candidates(s)) {
      deadline.check();
      const int64_t m = s.training.global_batch / (s.plan.dp * b);
      const bool v_shape = schedule_choice(given).v_shape && v == 2;
      if (v > 1 && !v_shape && m % s.plan.pp != 0) continue;                // Megatron's interleaving needs it
      if (v_shape && !schedule_choice(given).runs(s.plan.pp, m)) continue;  // DualPipe's microbatches
      Candidate c{s, layouts.size() - 1, {}, m, 0};
      c.trial.training.micro_batch.value = b;
      c.trial.plan.virtual_stages.value = v;
      c.trial.plan.schedule = v_shape ? given : v > 1 ? Schedule::INTERLEAVED : one_chunk_schedule(given);
      c.mem = estimate_memory(c.trial, layout, b);
      ++tried;
      any = true;
      if (c.mem.fits) {
        any_fits = true;
        admit(std::move(c));
      } else if (!smallest || c.mem.reserved < smallest->mem.reserved) {
        smallest = std::move(c);
      }
    }
  }
  // No candidate fits: the one that needs the least memory runs, reported as not fitting, unless
  // over-memory plans are refused.
  const bool none_fits = any && !any_fits;
  if (none_fits && over_memory == OverMemory::RUN) admit(*smallest);
  if (bounded && build.size() > 1) {  // folded, the largest buffers
    const EngineShape shape = engine_shape(s);
    std::vector<Candidate> admitted;
    for (Candidate& c : build) {
      const ResourceEstimate early = estimate_resources(c.trial, shape, layouts[c.layout], c.m, budget.full_fidelity);
      if (within(early, budget)) {
        admitted.push_back(std::move(c));
        continue;
      }
      note_over_budget(early);
      planned_tasks -= c.tasks;
    }
    build = std::move(admitted);
  }
  if (planned_tasks > MAX_PLANNED_TASKS) {
    const bool mb_auto = s.training.micro_batch.is_auto();
    throw InputError(s.file, s.json_path(mb_auto ? "/training/micro_batch" : "/parallelism/virtual_stages"),
                     "\"auto\" would plan " + std::to_string(build.size()) + " candidates of " +
                         std::to_string(planned_tasks) + " tasks in all, more than the limit of " +
                         std::to_string(MAX_PLANNED_TASKS),
                     "a fixed micro_batch or virtual_stages, or fewer microbatches per step");
  }
  // Of the designs, the one whose estimated step is the shortest for the first candidate that fits
  // (ties: the earlier).
  if (designs.size() > 1 && !build.empty()) {
    const Candidate& first = build.front();
    const StepProgram steps =
        build_step_program(first.trial, layouts[first.layout], first.trial.training.micro_batch.value, cm);
    size_t chosen = 0;
    double fastest = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < designs.size(); ++i) {
      deadline.check();
      Scenario trial = first.trial;
      apply_design(trial, designs[i]);
      const double step = estimate_step(steps, CommCosts(trial)).step.value;
      if (step < fastest) fastest = step, chosen = i;
    }
    apply_design(s, designs[chosen]);
    for (Candidate& c : build) apply_design(c.trial, designs[chosen]);
  }
  // The programs in the order of their lower bounds (step_bound.hpp, step_lower_bound), so that the
  // first ones built set a step time that the bounds of the rest can rarely beat; a candidate is
  // built only if its bound could beat the best so far (a tie with an earlier candidate loses, as
  // in candidate order) and the cutoff.
  std::vector<double> bound(build.size());
  std::vector<size_t> order(build.size());
  std::optional<CommCosts> comm;  // the plan's, the same for every candidate
  if (!build.empty()) comm.emplace(s);
  for (size_t i = 0; i < build.size(); ++i) {
    deadline.check();
    const Candidate& c = build[i];
    bound[i] = step_lower_bound(c.trial, layouts[c.layout], c.trial.training.micro_batch.value, cm, *comm).value;
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return bound[x] < bound[y]; });
  std::optional<ResolvedPlan> best;
  std::shared_ptr<StepProgram> best_steps;
  size_t best_index = 0;
  bool pruned = false;
  for (size_t i : order) {
    deadline.check();
    if (bound[i] >= cutoff.value || (best && (bound[i] > best->estimated_step.value ||
                                              (bound[i] == best->estimated_step.value && i > best_index)))) {
      pruned = pruned || !best;
      continue;
    }
    const Candidate& c = build[i];
    const StageLayout& layout = layouts[c.layout];
    const int64_t b = c.trial.training.micro_batch.value, v = c.trial.plan.virtual_stages.value;
    auto steps = std::make_shared<StepProgram>(build_step_program(c.trial, layout, b, cm));
    const Estimate timeline = estimate_step(*steps, *comm);
    ResourceEstimate resources;
    if (bounded) {
      // Before the fold of this program's buffers, its ring flows counted and none kept: a lower bound
      // (the count follows from the plan's groups, which every candidate shares).
      if (!counted) counted = counted_shape(s);
      ResourceEstimate least = estimate_resources(c.trial, *counted, *steps, timeline, budget.full_fidelity);
      least.lower_bound = true;
      if (!within(least, budget)) {
        note_over_budget(least);
        continue;
      }
      resources =
          estimate_resources(c.trial, engine_shape(c.trial, steps.get()), *steps, timeline, budget.full_fidelity);
      if (!within(resources, budget)) {
        note_over_budget(resources);
        continue;
      }
    }
    if (!best || timeline.step < best->estimated_step || (timeline.step == best->estimated_step && i < best_index)) {
      best = ResolvedPlan{b, v, layout, nullptr, c.mem, timeline.step, 0, resources};
      best_steps = std::move(steps);
      best_index = i;
    }
  }
  if (!any)
    throw InputError(s.file, s.json_path("/parallelism/virtual_stages"),
                     "no virtual-stage count gives a microbatch count divisible by pp=" + std::to_string(s.plan.pp),
                     "global_batch/(dp*micro_batch) divisible by pp, or virtual_stages 1");
  if (!best && over_budget) check_budget(s, *over_budget, budget);
  if (!best && pruned) {  // every candidate that fits is bounded above the cutoff
    if (lowest_bound) *lowest_bound = Seconds(*std::min_element(bound.begin(), bound.end()));
    return std::nullopt;
  }
  if (!best && over_limit > 0)
    throw InputError(s.file, s.json_path("/training/global_batch"),
                     "a step of " + std::to_string(over_limit) + " tasks (" + std::to_string(units) + " * " +
                         std::to_string(over_m) + " microbatches * pp=" + std::to_string(s.plan.pp) +
                         " * virtual_stages=" + std::to_string(over_v) + ") is more than the limit of " +
                         std::to_string(MAX_TASKS),
                     "fewer microbatches per step: a smaller global_batch, or a larger dp or micro_batch");
  if (!best) {
    SIM_ASSERT(none_fits, "a candidate that fits was admitted, so one is planned or refused above");
    const MemoryEstimate& m = smallest->mem;
    bool fixed = !s.training.micro_batch.is_auto();
    throw InputError(s.file, s.json_path(fixed ? "/training/micro_batch" : "/parallelism"),
                     "the plan needs " + format_bytes(m.reserved) + " per GPU (reserved at its peak) but " +
                         s.cluster.device.name + " leaves " + format_bytes(m.usable) + " of its " +
                         format_bytes(m.capacity) + " (less the CUDA context and NCCL's buffers): over by " +
                         format_bytes(m.over),
                     "a plan that fits: more tp or pp, recompute, ZeRO, or a smaller micro_batch");
  }
  best->candidates_tried = tried;
  if (build_graph)  // `new Pipeline(prvalue)` constructs in place (C++17 guaranteed elision): no graph copy
    best->pipeline = std::shared_ptr<const Pipeline>(new Pipeline(build_pipeline(std::move(*best_steps))));
  s.training.micro_batch.value = best->micro_batch;
  s.plan.virtual_stages.value = best->virtual_stages;
  if (best->virtual_stages > 1 && !schedule_choice(s.plan.schedule).v_shape)  // ZB-V keeps its name
    s.plan.schedule = Schedule::INTERLEAVED;
  else if (best->virtual_stages == 1)
    s.plan.schedule = one_chunk_schedule(s.plan.schedule);
  return best;
}

}  // namespace

std::optional<ResolvedPlan> resolve_plan_below(Scenario& s, const ComputeModel& cm, Seconds cutoff,
                                               const Deadline& deadline, const SimulationBudget& budget,
                                               Seconds* lowest_bound, OverMemory over_memory) {
  return resolve(s, cm, cutoff, deadline, budget, lowest_bound, false, over_memory);
}

ResolvedPlan resolve_plan(Scenario& s, const ComputeModel& cm, const Deadline& deadline, const SimulationBudget& budget,
                          OverMemory over_memory) {
  auto p =
      resolve(s, cm, Seconds(std::numeric_limits<double>::infinity()), deadline, budget, nullptr, true, over_memory);
  SIM_ASSERT(p.has_value(), "no cutoff, so a candidate that fits is planned");
  return std::move(*p);
}

}  // namespace sim
