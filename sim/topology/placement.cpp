#include "sim/topology/placement.hpp"

#include "sim/scenario/cluster.hpp"
#include "sim/scenario/plan.hpp"

namespace sim {

Placement::Placement(const ClusterSpec& cluster, const ParallelPlan& plan)
    : tp_(plan.tp),
      cp_(plan.cp),
      pp_(plan.pp),
      gpus_per_node_(cluster.gpus_per_node),
      nics_per_node_(cluster.scale_out.nics_per_node),
      pod_gpus_(cluster.scale_out.pod_gpus) {}

int64_t Placement::nic(int64_t gpu) const {
  int64_t rail = nics_per_node_ >= gpus_per_node_ ? local(gpu) : local(gpu) * nics_per_node_ / gpus_per_node_;
  return node(gpu) * nics_per_node_ + rail;
}

}  // namespace sim
