#include "sim/topology/fat_tree.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/topology/placement.hpp"

namespace sim {

int64_t add_node_nic(Network& net, int64_t node, int64_t rail, int64_t gpus_per_node, int64_t nics_per_node,
                     BytesPerSecond bandwidth, int64_t up, Seconds latency) {
  const int64_t nic = net.add_vertex(VertexKind::NIC, 0);
  net.nic.push_back(nic);
  net.add_link(nic, up, bandwidth, latency);
  for (int64_t i = 0; i < gpus_per_node; ++i)
    if (rail_of(i, gpus_per_node, nics_per_node) == rail) {
      const int64_t g = node * gpus_per_node + i;
      net.nic_of_gpu[static_cast<size_t>(g)] = nic;
      net.add_link(net.gpu[static_cast<size_t>(g)], nic, bandwidth, Seconds(0));
    }
  return nic;
}

void build_fat_tree(Network& net, const FatTreeShape& s) {
  const int64_t pod_nodes = s.pod_nodes > 0 ? std::min(s.pod_nodes, s.nodes) : s.nodes;
  const int64_t pods = s.nodes < 1 || pod_nodes < 1 ? 0 : (s.nodes + pod_nodes - 1) / pod_nodes;
  const int64_t last_pod = s.nodes - (pods - 1) * pod_nodes;  // nodes in the last pod (may be partial)
  if (s.nodes < 1 || s.gpus_per_node < 1 || s.nics_per_node < 1 || s.leaf_nodes < 1 || pod_nodes % s.leaf_nodes != 0 ||
      last_pod % s.leaf_nodes != 0 || !(s.oversubscription >= 1) ||
      static_cast<int64_t>(net.gpu.size()) != s.nodes * s.gpus_per_node)
    throw std::invalid_argument("build_fat_tree: the shape does not tile the cluster");
  const int64_t rails = s.rail_optimised ? s.nics_per_node : 1;
  const BytesPerSecond bw = s.nic_bandwidth;
  const int64_t core = pods > 1 ? net.add_vertex(VertexKind::SWITCH, 3) : -1;
  net.nic_of_gpu.assign(net.gpu.size(), -1);
  net.nic.clear();
  for (int64_t p = 0; p < pods; ++p) {
    const int64_t nodes = p + 1 < pods ? pod_nodes : last_pod, groups = nodes / s.leaf_nodes;
    const int64_t spine = net.add_vertex(VertexKind::SWITCH, 2);
    if (core >= 0)
      net.add_link(spine, core, BytesPerSecond(bw.value * double(nodes * s.nics_per_node) / s.oversubscription),
                   s.latency);
    for (int64_t k = 0; k < groups; ++k) {
      // The group's leaves: one per rail, or one for the whole rack.
      std::vector<int64_t> leaf(static_cast<size_t>(rails));
      const double ports = double(s.leaf_nodes * s.nics_per_node / rails);
      for (auto& l : leaf) {
        l = net.add_vertex(VertexKind::SWITCH, 1);
        net.add_link(l, spine, BytesPerSecond(bw.value * ports), Seconds(0));
      }
      for (int64_t n = p * pod_nodes + k * s.leaf_nodes; n < p * pod_nodes + (k + 1) * s.leaf_nodes; ++n)
        for (int64_t r = 0; r < s.nics_per_node; ++r) {
          add_node_nic(net, n, r, s.gpus_per_node, s.nics_per_node, bw,
                       leaf[static_cast<size_t>(s.rail_optimised ? r : 0)], s.latency);
        }
    }
  }
}

}  // namespace sim
