#include "sim/topology/placement.hpp"

#include "sim/core/error.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/plan.hpp"

namespace sim {

Placement::Placement(const ClusterSpec& cluster, const ParallelPlan& plan)
    : size_{plan.tp, plan.cp, plan.pp, plan.dp},
      gpu_of_rank_(plan.gpu_of_rank),
      gpus_per_node_(cluster.gpus_per_node),
      domain_gpus_(cluster.domain_gpus()),
      nics_per_node_(cluster.scale_out.nics_per_node),
      pod_gpus_(cluster.scale_out.pod_gpus) {
  int64_t stride = 1;
  for (ParallelDim d : plan.order) {
    stride_[static_cast<size_t>(d)] = stride;
    stride *= size_[static_cast<size_t>(d)];
  }
  if (gpu_of_rank_.empty()) return;
  SIM_ASSERT(static_cast<int64_t>(gpu_of_rank_.size()) == stride,
             "parse_scenario checks the placement list against the plan's ranks");
  rank_of_gpu_.assign(gpu_of_rank_.size(), -1);
  for (size_t g = 0; g < gpu_of_rank_.size(); ++g) {
    const int64_t gpu = gpu_of_rank_[g];
    SIM_ASSERT(gpu >= 0 && gpu < stride && rank_of_gpu_[static_cast<size_t>(gpu)] < 0,
               "parse_scenario checks that the placement list is a permutation");
    rank_of_gpu_[static_cast<size_t>(gpu)] = static_cast<int64_t>(g);
  }
}

int64_t Placement::nic(int64_t gpu) const {
  return node(gpu) * nics_per_node_ + rail_of(local(gpu), gpus_per_node_, nics_per_node_);
}

int64_t Placement::class_peers_on_nic(int64_t pp_rank, int64_t gpu_id) const {
  const int64_t target = nic(gpu_id);
  auto [it, fresh] = peers_.try_emplace({pp_rank, target}, 0);
  if (fresh)
    for (int64_t d = 0; d < size_[3]; ++d)
      for (int64_t c = 0; c < size_[1]; ++c)
        for (int64_t t = 0; t < size_[0]; ++t)
          if (nic(gpu({t, c, pp_rank, d})) == target) ++it->second;
  return it->second;
}

}  // namespace sim
