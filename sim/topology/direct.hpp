// Scale-out builder: a direct-connect network (TopoOpt, Wang et al., NSDI 2023). No switch: each
// node's NIC ports carry circuits (set once for the job through a patch panel or an optical
// circuit switch that stays put) straight to other nodes' ports. A node forwards what passes
// through it (TopoOpt's host forwarding over RDMA), so nodes without a circuit between them reach
// each other over the fewest circuits.
//
//      GPU GPU … GPU        a node: its GPUs on their NICs as in a fat-tree (fat_tree.hpp,
//       |   |     |         add_node_nic), every NIC's port into the node's router, which
//      NIC NIC … NIC        pools them (NCCL's PXN moves data to the NIC whose port holds the
//        \  |   /           circuit), and one link per pair of joined nodes carrying its circuits
//        [router] ==== circuits ==== [router]   (k circuits: k x nic_bandwidth each way)
//
// Latency: the scale-out latency is charged half on each NIC's port link and once on each
// circuit, so a transfer over one circuit pays it twice (as between two NICs of a fat-tree) and
// every node it is forwarded through once more.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/circuits.hpp"
#include "sim/topology/network.hpp"
#include "sim/topology/torus.hpp"

namespace sim {

struct DirectShape {
  int64_t nodes = 1, gpus_per_node = 8, nics_per_node = 8;
  BytesPerSecond nic_bandwidth;   // per NIC port, per circuit, per direction
  Seconds latency;                // (above)
  std::vector<Circuit> circuits;  // node pairs, one entry per circuit
};

// Adds the NICs, routers and circuits to a network whose GPUs exist already (build_nvswitch), fills
// Network::nic_of_gpu and Network::direct (routes: a breadth-first search toward each node,
// neighbours in the order their first circuit was listed); std::invalid_argument when a circuit
// names a node outside the cluster or joins a node to itself, or a node has more circuits than
// NICs.
void build_direct(Network& net, const DirectShape& shape);

// The circuit links from node `from`'s router to node `to`'s, in order (appended to `out`,
// cleared first; empty when from == to); std::logic_error when no circuits join them.
void direct_route(const Network& net, int64_t from, int64_t to, std::vector<TorusHop>& out);

}  // namespace sim
