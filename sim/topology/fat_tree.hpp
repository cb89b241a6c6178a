// Scale-out builder: a fat-tree of NICs in pods, rail-optimised or top-of-rack.
//
//                              [ core ]                               tier 3 (with 2+ pods)
//                      pod uplink: pod NIC bandwidth / oversubscription
//              [ pod 0 spine ]            [ pod 1 spine ]             tier 2
//              /      |      \             full bisection inside a pod: a leaf's uplink carries
//         [leaf]   [leaf] … [leaf]          all its NICs' bandwidth
//          / | \                                                      tier 1
//        NIC NIC … NIC                                                tier 0
//         |   |
//        GPU GPU                            GPU i sends through NIC rail_of(i) (placement.hpp)
//
// Rail-optimised (DGX SuperPOD): leaf (p, r, k) joins NIC r of the k-th group of leaf_nodes nodes of
// pod p — one leaf per rail per group (32 nodes: a scalable unit). Top-of-rack (Llama 3's RoCE
// cluster): leaf (p, k) joins every NIC of the k-th group of leaf_nodes nodes (a rack of 2 servers).
// The spine of a pod and the core are drawn as one non-blocking switch each, their links as one
// link per leaf or pod carrying the sum of its ports (what ECMP spreads over them).
//
// Latency: the cluster's scale_out latency is the whole fabric's (its sources put a three-level
// fat tree, switch hops, NIC and cable, at about 1 us), charged on each NIC's link -- a route
// between two NICs crosses two -- and on each pod uplink, for the extra tier between pods; the
// leaf-to-spine hop inside a pod adds none.
#pragma once

#include <cstdint>

#include "sim/core/units.hpp"
#include "sim/topology/network.hpp"

namespace sim {

struct FatTreeShape {
  int64_t nodes = 1, gpus_per_node = 8, nics_per_node = 8;
  BytesPerSecond nic_bandwidth;  // per NIC per direction
  int64_t pod_nodes = 0;         // 0: one pod of every node; the last pod may have fewer
  double oversubscription = 1;   // above a pod (pod uplink = pod NIC bandwidth / this)
  bool rail_optimised = true;
  int64_t leaf_nodes = 32;  // nodes under one leaf (per rail when rail-optimised); must divide every pod's nodes
  Seconds latency;          // on each NIC link and pod uplink (above)
};

// Adds the NICs, leaves, spines and core to a network whose GPUs exist already (build_nvswitch),
// and fills Network::nic_of_gpu; std::invalid_argument on a shape that does not tile.
void build_fat_tree(Network& net, const FatTreeShape& shape);

// Node n's NIC of rail r: a NIC vertex (appended to Network::nic) linked to vertex `up` (its port,
// `bandwidth` with `latency`), then to the node's GPUs that send through it (placement.hpp,
// rail_of; Network::nic_of_gpu set for them) at `bandwidth`.
int64_t add_node_nic(Network& net, int64_t node, int64_t rail, int64_t gpus_per_node, int64_t nics_per_node,
                     BytesPerSecond bandwidth, int64_t up, Seconds latency);

}  // namespace sim
