// What only the cluster decides about a scenario's `failures` and `recovery` (reliability_spec.hpp):
// the spare pool and the in-memory replicas are nodes of it, "takes": "pod" is its pod's nodes, and
// `rewire` needs the optical circuit switches that wire a spare in.
#pragma once

#include "sim/scenario/cluster.hpp"
#include "sim/scenario/reliability_spec.hpp"

namespace sim {

class ParamReader;

// Resolves "takes": "pod" in `spec` against `cluster` and refuses what the cluster cannot hold, as
// InputErrors naming `scenario`'s /failures or /recovery path.
void fit_reliability_to_cluster(ReliabilitySpec& spec, const ClusterSpec& cluster, const ParamReader& scenario);

}  // namespace sim
