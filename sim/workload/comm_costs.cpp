#include "sim/workload/comm_costs.hpp"

#include <algorithm>
#include <set>

#include "sim/scenario/scenario.hpp"

namespace sim {

CommCosts::CommCosts(const Scenario& s) : s_(s), place_(s.cluster, s.plan) {}

namespace {

// The group's ranks are consecutive GPUs (TP) or strided by tp (CP): it leaves the node when its
// first and last members sit on different nodes.
bool group_leaves_node(const Scenario& s, const Placement& place, CommGroup group) {
  const int64_t n = group == CommGroup::TP ? s.plan.tp : s.plan.cp;
  const RankCoord last = group == CommGroup::TP ? RankCoord{n - 1, 0, 0, 0} : RankCoord{0, n - 1, 0, 0};
  return !place.same_node(place.gpu({0, 0, 0, 0}), place.gpu(last));
}

}  // namespace

Seconds CommCosts::group_collective(CommGroup group, CollectiveKind kind, Bytes buffer) const {
  const auto& c = s_.cluster;
  const int64_t n = group == CommGroup::TP ? s_.plan.tp : s_.plan.cp;
  const bool out = group_leaves_node(s_, place_, group);
  BytesPerSecond bw = out ? c.scale_out.nic_bandwidth : c.scale_up.bandwidth;
  return collective_time_idle(choose_algo(kind, n, out, c.nvls()), kind, buffer, n, bw, out, c.device.collectives);
}

CollectiveAlgo CommCosts::group_all_reduce_algo(CommGroup group) const {
  const int64_t n = group == CommGroup::TP ? s_.plan.tp : s_.plan.cp;
  return choose_algo(CollectiveKind::ALL_REDUCE, n, group_leaves_node(s_, place_, group), s_.cluster.nvls());
}

CollectiveAlgo CommCosts::dp_all_reduce_algo(int64_t rank) const {
  return choose_algo(CollectiveKind::ALL_REDUCE, s_.plan.dp, dp_crosses_nodes(rank), s_.cluster.nvls());
}

Seconds CommCosts::p2p(int64_t from_rank, int64_t to_rank, Bytes bytes) const {
  const auto& c = s_.cluster;
  int64_t a = place_.gpu({0, 0, from_rank, 0}), b = place_.gpu({0, 0, to_rank, 0});
  bool out = !place_.same_node(a, b);
  BytesPerSecond bw = out ? c.scale_out.nic_bandwidth * c.device.collectives.scale_out_efficiency
                          : c.scale_up.bandwidth * c.device.collectives.scale_up_efficiency;
  // GPUs of a class that share one NIC share its bandwidth.
  if (out) bw = bw / double(std::max(place_.class_peers_on_nic(from_rank, a), place_.class_peers_on_nic(to_rank, b)));
  Seconds step = out ? c.device.collectives.scale_out_step_latency : c.device.collectives.scale_up_step_latency;
  return c.device.collectives.base_latency + step + bytes / bw;
}

bool CommCosts::dp_crosses_nodes(int64_t rank) const {
  int64_t first = place_.gpu({0, 0, rank, 0}), last = place_.gpu({0, 0, rank, s_.plan.dp - 1});
  return !place_.same_node(first, last);
}

int64_t CommCosts::dp_members_per_node(int64_t rank) const {
  std::set<int64_t> nodes;
  for (int64_t d = 0; d < s_.plan.dp; ++d) nodes.insert(place_.node(place_.gpu({0, 0, rank, d})));
  return s_.plan.dp / static_cast<int64_t>(nodes.size());
}

Seconds CommCosts::dp_all_reduce(int64_t rank, Bytes buffer) const {
  return dp_latency(rank) + dp_transfer(rank, buffer);
}

Seconds CommCosts::dp_latency(int64_t rank) const {
  if (s_.plan.dp <= 1) return Seconds(0);
  const bool out = dp_crosses_nodes(rank);
  return algo_latency(choose_algo(CollectiveKind::ALL_REDUCE, s_.plan.dp, out, s_.cluster.nvls()),
                      CollectiveKind::ALL_REDUCE, s_.plan.dp, out, s_.cluster.device.collectives);
}

Seconds CommCosts::dp_transfer(int64_t rank, Bytes buffer) const {
  const int64_t n = s_.plan.dp;
  if (n <= 1) return Seconds(0);
  const auto& c = s_.cluster;
  const auto& k = c.device.collectives;
  RingCost ring = ring_cost(CollectiveKind::ALL_REDUCE, buffer, n);
  if (!dp_crosses_nodes(rank)) {
    const CollectiveAlgo a = choose_algo(CollectiveKind::ALL_REDUCE, n, false, c.nvls());
    return link_bytes(a, CollectiveKind::ALL_REDUCE, buffer, n, k) / (c.scale_up.bandwidth * k.scale_up_efficiency);
  }
  // NCCL runs one ring channel per member on a node, each leaving the node through a different
  // NIC: 1/m of the traffic crosses each member's NIC, (m-1)/m stays on NVLink.
  const double m = static_cast<double>(dp_members_per_node(rank));
  const double gpus_per_nic = place_.gpus_per_nic();
  // A ring that leaves its pod shares the pod's uplinks, oversubscribed by this ratio.
  const bool crosses_pods = place_.pod(place_.gpu({0, 0, rank, 0})) != place_.pod(place_.gpu({0, 0, rank, n - 1}));
  const double over = crosses_pods ? c.scale_out.oversubscription : 1.0;
  Seconds net = ring.bytes_per_rank / m / (c.scale_out.nic_bandwidth * k.scale_out_efficiency / gpus_per_nic / over);
  Seconds nvl = ring.bytes_per_rank * ((m - 1.0) / m) / (c.scale_up.bandwidth * k.scale_up_efficiency);
  return std::max(net, nvl);
}

}  // namespace sim
