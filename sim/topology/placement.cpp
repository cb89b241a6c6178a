#include "sim/topology/placement.hpp"

#include "sim/scenario/cluster.hpp"
#include "sim/scenario/plan.hpp"

namespace sim {

Placement::Placement(const ClusterSpec& cluster, const ParallelPlan& plan)
    : tp_(plan.tp),
      cp_(plan.cp),
      pp_(plan.pp),
      dp_(plan.dp),
      gpus_per_node_(cluster.gpus_per_node),
      nics_per_node_(cluster.scale_out.nics_per_node),
      pod_gpus_(cluster.scale_out.pod_gpus) {}

int64_t Placement::nic(int64_t gpu) const {
  return node(gpu) * nics_per_node_ + rail_of(local(gpu), gpus_per_node_, nics_per_node_);
}

int64_t Placement::class_peers_on_nic(int64_t pp_rank, int64_t gpu_id) const {
  const int64_t target = nic(gpu_id);
  auto [it, fresh] = peers_.try_emplace({pp_rank, target}, 0);
  if (fresh)
    for (int64_t d = 0; d < dp_; ++d)
      for (int64_t c = 0; c < cp_; ++c)
        for (int64_t t = 0; t < tp_; ++t)
          if (nic(gpu({t, c, pp_rank, d})) == target) ++it->second;
  return it->second;
}

}  // namespace sim
