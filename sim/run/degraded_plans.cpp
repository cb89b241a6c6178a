#include "sim/run/degraded_plans.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/run/run.hpp"
#include "sim/topology/placement.hpp"
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

// A placement other than the default: units of the fewest whole stages (a divisor of pp) such that
// no node holds stages of two units, and per node the (replica, unit) pairs of its GPUs. Returns
// the stages per unit.
int64_t place_units(const Scenario& s, reliability::Degradation& d) {
  const Placement place(s.cluster, s.plan);
  const int64_t pp = s.plan.pp, nodes = s.cluster.nodes();
  std::vector<int64_t> lo(static_cast<size_t>(nodes), pp), hi(static_cast<size_t>(nodes), -1);
  for (int64_t g = 0; g < s.cluster.gpus; ++g) {
    const auto n = static_cast<size_t>(place.node(g));
    const int64_t stage = place.coord(g).pp;
    lo[n] = std::min(lo[n], stage);
    hi[n] = std::max(hi[n], stage);
  }
  int64_t k = 1;
  const auto splits = [&](int64_t size) {
    for (size_t n = 0; n < lo.size(); ++n)
      if (hi[n] >= 0 && lo[n] / size != hi[n] / size) return true;
    return false;
  };
  while (pp % k != 0 || splits(k)) ++k;
  d.units = pp / k;
  d.nodes_per_unit = d.replicas_per_node = 1;
  d.node_parts.assign(static_cast<size_t>(nodes), {});
  for (int64_t g = 0; g < s.cluster.gpus; ++g) {
    const RankCoord c = place.coord(g);
    d.node_parts[static_cast<size_t>(place.node(g))].emplace_back(c.dp, c.pp / k);
  }
  for (auto& parts : d.node_parts) {
    std::sort(parts.begin(), parts.end());
    parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
  }
  return k;
}

// The step time of a variant; nullopt when it cannot run (it does not fit in memory, or its
// layout is impossible), with the reason in `why`.
std::optional<double> step_of(Scenario v, const EngineOptions& opt, std::string* why = nullptr) {
  EngineOptions quiet = opt;
  quiet.trial_progress = {};
  try {
    return run_scenario(std::move(v), quiet).step_time_s;
  } catch (const InputError& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
}

InputError unsuited(const Scenario& s, const std::string& what, const std::string& expected) {
  return InputError(s.file, s.json_path("/recovery/kind"), what, expected);
}

}  // namespace

ContinuingPlan plan_continuing(const RunResult& healthy, const EngineOptions& opt) {
  const Scenario& s = healthy.scenario;
  const RecoveryKind kind = s.reliability->recovery.kind;
  const std::string name = to_string(kind);
  const int64_t gpn = s.cluster.gpus_per_node, tp = s.plan.tp, cp = s.plan.cp, pp = s.plan.pp, dp = s.plan.dp;
  const int64_t replica_gpus = tp * cp * pp, stage_gpus = tp * cp;
  ContinuingPlan out;
  out.step_s = healthy.step_time_s;
  reliability::Degradation& d = out.degradation;
  d.kind = kind == RecoveryKind::RECONFIGURE ? reliability::Continuing::RECONFIGURE
           : kind == RecoveryKind::REDUNDANT ? reliability::Continuing::REDUNDANT
           : kind == RecoveryKind::REROUTE   ? reliability::Continuing::REROUTE
                                             : reliability::Continuing::SWARM;
  d.nodes = s.cluster.nodes();
  d.dp = dp;
  if (replica_gpus * dp != s.cluster.gpus)
    throw unsuited(s,
                   "'" + name + "' needs the plan to fill the cluster (" + std::to_string(replica_gpus * dp) + " of " +
                       std::to_string(s.cluster.gpus) + " GPUs used)",
                   "tp * cp * pp * dp = cluster GPUs");
  int64_t stages_per_unit = 1;
  if (!s.plan.default_placement()) {
    stages_per_unit = place_units(s, d);
  } else if (replica_gpus >= gpn) {
    if (replica_gpus % gpn != 0 || (stage_gpus > gpn && stage_gpus % gpn != 0) ||
        (stage_gpus < gpn && gpn % stage_gpus != 0))
      throw unsuited(s, "'" + name + "' needs pipeline stages that fill whole nodes or nodes that hold whole stages",
                     "tp * cp a multiple or a divisor of gpus_per_node");
    d.nodes_per_unit = std::max<int64_t>(1, stage_gpus / gpn);
    d.units = replica_gpus / gpn / d.nodes_per_unit;
    stages_per_unit = pp / d.units;
  } else {
    if (gpn % replica_gpus != 0)
      throw unsuited(s, "'" + name + "' needs nodes that hold whole replicas",
                     "tp * cp * pp a divisor of gpus_per_node");
    d.replicas_per_node = gpn / replica_gpus;
    d.units = 1;
    stages_per_unit = pp;
  }
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
        if (v.plan.pp == 1 || v.plan.pp * vs > v.model.layers || s.microbatches() % v.plan.pp != 0) {
          v.plan.virtual_stages.value = 1;
          if (v.plan.schedule == Schedule::INTERLEAVED) v.plan.schedule = Schedule::ONE_F_ONE_B;
        }
        set_gpus(v);
        const auto t = step_of(std::move(v), opt);
        const double rate = t ? std::min(1.0, T / *t) : 0.0;
        d.template_rate[static_cast<size_t>(j)] = rate;
        efficiency = rate / left;
      }
      break;
    }
    case reliability::Continuing::REDUNDANT: {
      if (d.units < 2 || stages_per_unit != 1)
        throw unsuited(s,
                       "'redundant' needs one pipeline stage per node group and at least two per replica (pp = " +
                           std::to_string(pp) + ", tp * cp = " + std::to_string(stage_gpus) + ")",
                       "tp * cp >= gpus_per_node and pp >= 2");
      if (s.plan.virtual_stages.value != 1)
        throw unsuited(s, "'redundant' places each stage's successor beside it: interleaved stages are not supported",
                       "virtual_stages 1");
      // The busiest rank's forward work, and its bubble: Bamboo's eager redundant forward.
      const auto& g = healthy.plan.pipeline->graph;
      double forward = 0;
      for (size_t v = 0; v < boost::num_vertices(g); ++v)
        if (g[v].kind == TaskKind::FORWARD && g[v].rank == healthy.breakdown.rank)
          forward += g[v].compute.value + healthy.engine.spans[v].tp + healthy.engine.spans[v].cp;
      out.step_s = T + std::max(0.0, forward - healthy.breakdown.bubble_s);
      Scenario v = plain(s);
      StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file, s.pointer);
      std::vector<int64_t> merged = layout.layers;
      const size_t k = static_cast<size_t>(pp / 2 - 1);  // an inner pair: two full stages
      merged[k] += merged[k + 1];
      merged.erase(merged.begin() + static_cast<std::ptrdiff_t>(k + 1));
      v.plan.pp = pp - 1;
      v.plan.layers_per_stage = merged;
      set_gpus(v);
      std::string why;
      const auto t = step_of(std::move(v), opt, &why);
      if (!t)
        throw unsuited(s,
                       "'redundant' needs room for two stages' layers on a node: the merged plan fails (" + why + ")",
                       "a plan whose stages fit twice in memory");
      d.merged_rate = std::min(1.0, out.step_s / *t);
      break;
    }
    case reliability::Continuing::REROUTE: {
      if (dp < 2) throw unsuited(s, "'reroute' needs data-parallel peers to take the failed unit's work", "dp >= 2");
      const int64_t m = s.microbatches();
      d.reroute_rate = {1.0};
      // The job with dp' replicas carrying the whole batch: m' = ceil(m · dp / dp') micro-batches
      // per replica. An interleaved schedule needs a multiple of pp micro-batches (Megatron-LM): when
      // m' is not one, the slowdown of m' over m is measured on 1F1B instead (both simulated).
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
        std::string why;
        const auto t = step_of(std::move(v), opt, &why);
        if (!t) throw unsuited(s, "'reroute' cannot simulate the rerouted plan (" + why + ")", "a plan that runs");
        return *t;
      };
      std::optional<double> base_1f1b;
      for (int64_t lost = 1; lost <= std::min(SIMULATED_LOSSES, dp - 1); ++lost) {
        const int64_t replicas = dp - lost, per_replica = (m * dp + replicas - 1) / replicas;
        const bool interleaved = s.plan.virtual_stages.value > 1;
        double rate;
        if (!interleaved || per_replica % pp == 0) {
          rate = T / batch_of(replicas, per_replica, false);
        } else {
          if (!base_1f1b) base_1f1b = batch_of(dp, m, true);
          rate = *base_1f1b / batch_of(replicas, per_replica, true);
        }
        d.reroute_rate.push_back(std::min(1.0, rate));
      }
      break;
    }
    case reliability::Continuing::SWARM: break;
  }
  return out;
}

}  // namespace sim
