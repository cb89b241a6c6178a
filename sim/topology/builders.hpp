// The topology registry: the builder of each scale-up and scale-out kind a cluster may name
// (`scale_up.kind`, `scale_out.kind`; the names and descriptions live with the cluster schema in
// sim/scenario/cluster.hpp, which `trainsim list` prints), and the network of a whole cluster.
#pragma once

#include "sim/topology/network.hpp"

namespace sim {

struct ClusterSpec;

// The cluster's network: its scale-up domains, then its scale-out fabric. A fat-tree's leaves take
// up to 32 nodes each (a DGX SuperPOD scalable unit; the largest divisor of the pod's nodes up to
// 32), one per rail.
Network build_network(const ClusterSpec& cluster);

}  // namespace sim
