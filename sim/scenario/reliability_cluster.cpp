#include "sim/scenario/reliability_cluster.hpp"

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/params.hpp"

namespace sim {

void fit_reliability_to_cluster(ReliabilitySpec& spec, const ClusterSpec& cluster, const ParamReader& scenario) {
  const RecoverySpec& rec = spec.recovery;
  const int64_t nodes = cluster.nodes();
  const std::string& file = scenario.file();
  const std::string recovery = scenario.path() + "/recovery";  // where the scenario sits in its file
  if (rec.kind == RecoveryKind::REWIRE && !cluster.optical_switches())
    throw InputError(
        file, recovery + "/kind",
        "'rewire' wires a spare in through optical circuit switches, and this cluster has none (scale_up " +
            cluster.scale_up.kind + ", scale_out " + cluster.scale_out.kind + ")",
        "a cluster with scale_out.kind \"ocs\" or a torus with scale_up.ocs, or \"spares\"");
  const int64_t spares = spare_pool(rec, nodes);
  if ((rec.kind == RecoveryKind::SPARES || rec.kind == RecoveryKind::REWIRE) && spares > nodes)
    throw InputError(file, recovery + "/spares",
                     std::to_string(spares) + " spares for a cluster of " + std::to_string(nodes) + " nodes",
                     "a pool no larger than the cluster");
  if (rec.kind == RecoveryKind::IN_MEMORY_CHECKPOINT && rec.replicas > nodes)
    throw InputError(file, recovery + "/replicas",
                     std::to_string(rec.replicas) + " replicas but the cluster has " + std::to_string(nodes) + " nodes",
                     "at most one replica per node");
  // "takes": "pod" is a pod's nodes (the whole cluster when pod_gpus is 0 or larger than it); a
  // group of more nodes than the cluster has is a mistake.
  const int64_t pod_gpus = cluster.scale_out.pod_gpus;
  const int64_t pod_nodes = pod_gpus > 0 ? std::clamp<int64_t>(pod_gpus / cluster.gpus_per_node, 1, nodes) : nodes;
  for (auto& c : spec.failures.components) {
    if (c.takes_nodes == TAKES_POD)
      c.takes_nodes = pod_nodes;
    else if (c.takes_nodes > nodes)
      scenario.at("failures")
          .at("components")
          .at(c.name)
          .at("takes")
          .fail(std::to_string(c.takes_nodes) + " nodes but the cluster has " + std::to_string(nodes),
                "a group of at most the cluster's nodes, or \"pod\"");
  }
}

}  // namespace sim
