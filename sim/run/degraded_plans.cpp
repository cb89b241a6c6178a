#include "sim/run/degraded_plans.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/run/continuing_layout.hpp"
#include "sim/run/run.hpp"
#include "sim/topology/placement.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/stage_layout.hpp"

namespace sim {
namespace {

constexpr int64_t SIMULATED_LOSSES = 2;  // degraded plans simulated per strategy (j or d = 1, 2)

// The healthy scenario as a plain step: no failures, no faults, the plan fixed.
Scenario plain(const Scenario& s) {
  Scenario v = s;
  v.reliability.reset();
  v.step_faults = {};
  v.plan.dp_auto = false;
  return v;
}

// A variant on fewer GPUs keeps the dimension order; an explicit GPU list, which names the
// healthy plan's ranks, falls back to the identity; a direct-connect network's circuits join the
// nodes left.
void set_gpus(Scenario& v) {
  const int64_t gpus = v.plan.tp * v.plan.cp * v.plan.pp * v.plan.dp;
  if (gpus != v.cluster.gpus) v.plan.gpu_of_rank.clear();
  v.cluster.gpus = gpus;
  v.cluster.reset_circuits();  // a direct-connect network's, for the nodes left
}

// Why a degraded plan cannot run for memory (degraded_plans.hpp): over the GPU's memory and
// needing more reserved memory per GPU than the healthy plan it replaces; nullopt when it can.
std::optional<std::string> over_memory(const MemoryEstimate& m, const MemoryEstimate& healthy) {
  if (m.fits || m.reserved <= healthy.reserved) return std::nullopt;
  return "the plan needs " + format_bytes(m.reserved) + " per GPU (reserved at its peak), more than the " +
         format_bytes(healthy.reserved) + " of the plan it replaces, and the GPU leaves " + format_bytes(m.usable) +
         ": over by " + format_bytes(m.over);
}

// The step time of a variant; nullopt when it cannot run (its layout is impossible, or it is over
// memory: degraded_plans.hpp), with the reason in `why`.
std::optional<double> step_of(Scenario v, const MemoryEstimate& healthy, const EngineOptions& opt,
                              std::string* why = nullptr) {
  EngineOptions quiet = opt;
  quiet.trial_progress = {};
  try {
    const RunResult r = run_scenario(std::move(v), quiet);  // --strict-memory: refused there when over
    if (const auto over = over_memory(r.plan.memory, healthy)) {
      if (why) *why = *over;
      return std::nullopt;
    }
    return r.step_time_s;
  } catch (const InputError& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
}

// A degraded plan its strategy cannot do without: when it cannot run, the plan does not suit the
// strategy, refused with `what` and the variant's own reason.
struct RequiredPlan {
  Scenario variant;
  std::string what;      // the refusal, before " (<why>)"
  std::string expected;  // what would suit
};

InputError refusal(const Scenario& s, const RequiredPlan& p, const std::string& why) {
  return unsuited(s, p.what + " (" + why + ")", p.expected);
}

// Its step time, simulated; the refusal when it cannot run.
double required_step(const Scenario& s, const RequiredPlan& p, const MemoryEstimate& healthy,
                     const EngineOptions& opt) {
  std::string why;
  const auto t = step_of(p.variant, healthy, opt, &why);
  if (!t) throw refusal(s, p, why);
  return *t;
}

// Redundant: the failed unit's layers merged into its predecessor (pp - 1 stages, an inner pair's
// two full stages on one).
RequiredPlan merged_plan(const Scenario& s) {
  Scenario v = plain(s);
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file, s.pointer);
  std::vector<int64_t> merged = layout.layers;
  const size_t k = static_cast<size_t>(s.plan.pp / 2 - 1);
  merged[k] += merged[k + 1];
  merged.erase(merged.begin() + static_cast<std::ptrdiff_t>(k + 1));
  v.plan.pp = s.plan.pp - 1;
  v.plan.layers_per_stage = merged;
  set_gpus(v);
  return {std::move(v), "'redundant' needs room for two stages' layers on a node: the merged plan fails",
          "a plan whose stages fit twice in memory"};
}

// Reroute: the job with dp' replicas carrying the whole batch: m' = ceil(m * dp / dp')
// micro-batches per replica. An interleaved schedule needs a multiple of pp micro-batches
// (Megatron-LM): when m' is not one, the slowdown of m' over m is measured on 1F1B instead (both
// simulated). For d = 1 and 2 replicas lost, in the order they are simulated, each rate the step
// of plans[base] over that of plans[degraded] (base -1: the healthy step).
struct ReroutePlans {
  std::vector<RequiredPlan> plans;
  std::vector<std::pair<int64_t, int64_t>> rates;  // (base, degraded) per replicas lost
};

ReroutePlans reroute_plans(const Scenario& s) {
  const int64_t m = s.microbatches(), pp = s.plan.pp, dp = s.plan.dp;
  ReroutePlans out;
  const auto batch_of = [&](int64_t replicas, int64_t per_replica, bool plain_1f1b) {
    Scenario v = plain(s);
    v.plan.dp = replicas;
    v.training.global_batch = per_replica * v.training.micro_batch.value * replicas;
    if (plain_1f1b) {
      v.plan.virtual_stages.value = 1;
      v.plan.layers_per_stage.clear();
      v.plan.schedule = Schedule::ONE_F_ONE_B;
    }
    set_gpus(v);
    out.plans.push_back({std::move(v), "'reroute' cannot simulate the rerouted plan", "a plan that runs"});
    return static_cast<int64_t>(out.plans.size()) - 1;
  };
  int64_t base_1f1b = -1;
  for (int64_t lost = 1; lost <= std::min(SIMULATED_LOSSES, dp - 1); ++lost) {
    const int64_t replicas = dp - lost, per_replica = (m * dp + replicas - 1) / replicas;
    const ScheduleChoice& kind = schedule_choice(s.plan.schedule);
    if (kind.v_shape ? kind.runs(pp, per_replica) : s.plan.virtual_stages.value <= 1 || per_replica % pp == 0) {
      out.rates.emplace_back(-1, batch_of(replicas, per_replica, false));
    } else {
      if (base_1f1b < 0) base_1f1b = batch_of(dp, m, true);
      out.rates.emplace_back(base_1f1b, batch_of(replicas, per_replica, true));
    }
  }
  return out;
}

}  // namespace

ContinuingPlan plan_continuing(const RunResult& healthy, const EngineOptions& opt) {
  const Scenario& s = healthy.scenario;
  const int64_t pp = s.plan.pp;
  ContinuingLayout layout = continuing_layout(s);
  const int64_t stages_per_unit = layout.stages_per_unit;
  ContinuingPlan out;
  out.step_s = healthy.step_time_s;
  reliability::Degradation& d = out.degradation;
  d = std::move(layout.degradation);
  const double T = healthy.step_time_s;

  switch (d.kind) {
    case reliability::Continuing::RECONFIGURE: {
      d.template_rate.assign(static_cast<size_t>(d.units + 1), 0.0);
      d.template_rate[0] = 1.0;
      double efficiency = 0;  // of the last simulated template, per remaining unit
      for (int64_t j = 1; j < d.units; ++j) {
        const double left = double(d.units - j) / double(d.units);
        if (j > SIMULATED_LOSSES) {
          d.template_rate[static_cast<size_t>(j)] = efficiency * left;
          continue;
        }
        Scenario v = plain(s);
        v.plan.pp = pp - j * stages_per_unit;
        v.plan.layers_per_stage.clear();
        // Interleaving needs a multiple of pp micro-batches and a layer per virtual stage; a template
        // that cannot interleave runs plain 1F1B.
        const int64_t vs = v.plan.virtual_stages.value;
        const ScheduleChoice& kind = schedule_choice(v.plan.schedule);
        if (v.plan.pp == 1 || v.plan.pp * vs > v.model.layers || s.microbatches() % v.plan.pp != 0 ||
            (kind.two_copies && v.plan.pp % 2 != 0) || !kind.runs(v.plan.pp, s.microbatches())) {
          v.plan.virtual_stages.value = 1;
          v.plan.schedule = one_chunk_schedule(v.plan.schedule);
        }
        set_gpus(v);
        const auto t = step_of(std::move(v), healthy.plan.memory, opt);
        const double rate = t ? std::min(1.0, T / *t) : 0.0;
        d.template_rate[static_cast<size_t>(j)] = rate;
        efficiency = rate / left;
      }
      break;
    }
    case reliability::Continuing::REDUNDANT: {
      // The busiest rank's forward work, and its bubble: Bamboo's eager redundant forward.
      const auto& g = healthy.plan.pipeline->graph;
      double forward = 0;
      for (size_t v = 0; v < boost::num_vertices(g); ++v)
        if (g[v].kind == TaskKind::FORWARD && g[v].rank == healthy.breakdown.rank)
          forward += g[v].compute.value + healthy.engine.spans[v].collectives();
      out.step_s = T + std::max(0.0, forward - healthy.breakdown.bubble_s);
      d.merged_rate = std::min(1.0, out.step_s / required_step(s, merged_plan(s), healthy.plan.memory, opt));
      break;
    }
    case reliability::Continuing::REROUTE: {
      const ReroutePlans r = reroute_plans(s);
      std::vector<double> step;
      for (const RequiredPlan& p : r.plans) step.push_back(required_step(s, p, healthy.plan.memory, opt));
      d.reroute_rate = {1.0};
      for (const auto& [base, degraded] : r.rates)
        d.reroute_rate.push_back(
            std::min(1.0, (base < 0 ? T : step[static_cast<size_t>(base)]) / step[static_cast<size_t>(degraded)]));
      break;
    }
    case reliability::Continuing::SWARM: break;
  }
  return out;
}

Seconds check_continuing(const Scenario& s, const MemoryEstimate& healthy, const EngineOptions& opt) {
  std::vector<RequiredPlan> required;
  switch (continuing_layout(s).degradation.kind) {
    case reliability::Continuing::REDUNDANT: required.push_back(merged_plan(s)); break;
    case reliability::Continuing::REROUTE: required = reroute_plans(s).plans; break;
    case reliability::Continuing::RECONFIGURE:  // a template that cannot run is a rate of 0
    case reliability::Continuing::SWARM: break;
  }
  Seconds wall(0);
  for (RequiredPlan& p : required) {
    std::optional<std::string> over;
    try {
      Scenario planned = p.variant;
      const CheckedRun c = check_run(planned, opt);
      over = over_memory(c.plan.memory, healthy);
      wall += c.plan.resources.wall;
    } catch (const InputError& e) {
      throw refusal(s, p, e.what());
    }
    if (over) throw refusal(s, p, *over);
  }
  return wall;
}

}  // namespace sim
