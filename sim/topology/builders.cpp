#include "sim/topology/builders.hpp"

#include <functional>
#include <map>
#include <numeric>
#include <string>

#include "sim/core/error.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/topology/direct.hpp"
#include "sim/topology/fat_tree.hpp"
#include "sim/topology/nvswitch.hpp"
#include "sim/topology/torus.hpp"

namespace sim {
namespace {

constexpr int64_t SCALABLE_UNIT_NODES = 32;  // NVIDIA DGX SuperPOD RA: 32 nodes per scalable unit

void nvswitch(Network& net, const ClusterSpec& c) {
  build_nvswitch(net, {c.gpus, c.domain_gpus(), c.scale_up.bandwidth, c.scale_up.latency});
}

// The cluster's nodes and NICs, for a tree of switches above them.
FatTreeShape nic_tree(const ClusterSpec& c) {
  FatTreeShape s;
  s.nodes = c.nodes();
  s.gpus_per_node = c.gpus_per_node;
  s.nics_per_node = c.scale_out.nics_per_node;
  s.nic_bandwidth = c.scale_out.nic_bandwidth;
  s.latency = c.scale_out.latency;
  return s;
}

void fat_tree(Network& net, const ClusterSpec& c) {
  FatTreeShape s = nic_tree(c);
  // Pods of pod_gpus as Placement::pod counts them; the last may be partial (Llama 3 405B's 16k
  // GPUs take five of the 24k cluster's 3,072-GPU pods and a third of a sixth).
  s.pod_nodes = c.scale_out.pod_gpus > 0 ? std::max<int64_t>(1, c.scale_out.pod_gpus / c.gpus_per_node) : s.nodes;
  s.pod_nodes = std::min(s.pod_nodes, s.nodes);
  s.oversubscription = c.scale_out.oversubscription;
  const int64_t last_pod = s.nodes - (s.nodes - 1) / s.pod_nodes * s.pod_nodes;
  s.leaf_nodes = std::min(SCALABLE_UNIT_NODES, std::gcd(s.pod_nodes, last_pod));
  while (s.pod_nodes % s.leaf_nodes != 0 || last_pod % s.leaf_nodes != 0) --s.leaf_nodes;
  build_fat_tree(net, s);
}

// An optical circuit switch: circuits join NIC ports one to one, so for the permutations a
// phase's transfers form (each NIC sending to one NIC and receiving from one) it carries every
// NIC's line rate: one non-blocking switch over all of them. When circuits change is the
// communication plan's (CommPlan::reconfiguration).
void ocs(Network& net, const ClusterSpec& c) {
  FatTreeShape s = nic_tree(c);
  s.pod_nodes = s.leaf_nodes = s.nodes;
  s.rail_optimised = false;
  build_fat_tree(net, s);
  // The one leaf every NIC joins is the circuit switch (the spine above it carries nothing).
  net.ocs.push_back(net.other_end(net.up_link(net.nic.front()), net.nic.front()));
}

// Nodes joined by circuits (the plan's design or the user's strides: ClusterSpec::parse).
void direct(Network& net, const ClusterSpec& c) {
  build_direct(net, {c.nodes(), c.gpus_per_node, c.scale_out.nics_per_node, c.scale_out.nic_bandwidth,
                     c.scale_out.latency, c.scale_out.circuits});
}

// One torus (or mesh) of scale_up.dims chips per domain, one after another (ClusterSpec::parse
// checked that they tile the cluster).
void torus(Network& net, const ClusterSpec& c) {
  net.gpu.clear();
  for (int64_t t = 0; t < c.gpus / c.domain_gpus(); ++t)
    build_torus(net, {c.scale_up.dims, c.scale_up.twisted, c.scale_up.bandwidth, c.scale_up.latency, c.scale_up.wraps(),
                      c.scale_up.cube, c.scale_up.ocs});
  net.nic_of_gpu.assign(net.gpu.size(), -1);
}

using Builder = std::function<void(Network&, const ClusterSpec&)>;
const std::map<std::string, Builder>& scale_up_builders() {
  static const std::map<std::string, Builder> m = {{"nvswitch", nvswitch}, {"torus", torus}, {"mesh", torus}};
  return m;
}
const std::map<std::string, Builder>& scale_out_builders() {
  static const std::map<std::string, Builder> m = {{"fat-tree", fat_tree}, {"ocs", ocs}, {"direct", direct}};
  return m;
}

}  // namespace

Network build_network(const ClusterSpec& c) {
  const auto up = scale_up_builders().find(c.scale_up.kind);
  const auto out = scale_out_builders().find(c.scale_out.kind);
  SIM_ASSERT(up != scale_up_builders().end(), "no builder for scale_up.kind " + c.scale_up.kind);
  SIM_ASSERT(out != scale_out_builders().end(), "no builder for scale_out.kind " + c.scale_out.kind);
  Network net;
  up->second(net, c);
  out->second(net, c);
  return net;
}

}  // namespace sim
