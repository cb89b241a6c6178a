#include "sim/run/continuing_layout.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/topology/placement.hpp"

namespace sim {
namespace {

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

}  // namespace

InputError unsuited(const Scenario& s, const std::string& what, const std::string& expected) {
  return InputError(s.file, s.json_path("/recovery/kind"), what, expected);
}

ContinuingLayout continuing_layout(const Scenario& s) {
  const RecoveryKind kind = s.reliability->recovery.kind;
  const std::string name = to_string(kind);
  const int64_t gpn = s.cluster.gpus_per_node, tp = s.plan.tp, cp = s.plan.cp, pp = s.plan.pp, dp = s.plan.dp;
  const int64_t replica_gpus = tp * cp * pp, stage_gpus = tp * cp;
  ContinuingLayout out;
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
  int64_t& stages_per_unit = out.stages_per_unit;
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
  if (d.kind == reliability::Continuing::REDUNDANT) {
    if (d.units < 2 || stages_per_unit != 1)
      throw unsuited(s,
                     "'redundant' needs one pipeline stage per node group and at least two per replica (pp = " +
                         std::to_string(pp) + ", tp * cp = " + std::to_string(stage_gpus) + ")",
                     "tp * cp >= gpus_per_node and pp >= 2");
    if (s.plan.virtual_stages.value != 1)
      throw unsuited(s, "'redundant' places each stage's successor beside it: interleaved stages are not supported",
                     "virtual_stages 1");
  }
  // With one replica, a failed unit has no peer to take its work: every failure stops the job,
  // which is checkpoint-restart under another name.
  if ((d.kind == reliability::Continuing::REROUTE || d.kind == reliability::Continuing::SWARM) && dp < 2)
    throw unsuited(s, "'" + name + "' needs data-parallel peers to take a failed unit's work, and dp = 1",
                   "dp >= 2, or \"checkpoint-restart\"");
  return out;
}

}  // namespace sim
