// Where each rank of a plan runs (Megatron-LM's order, DESIGN.md): tensor parallel fastest
// (inside a node), then context, pipeline, data parallel:
//   global rank g = tp_i + tp * (cp_i + cp * (pp_i + pp * dp_i))
// and GPU g sits on node g / gpus_per_node at local index g % gpus_per_node, which uses NIC
// local * nics_per_node / gpus_per_node of its node (rail-optimised: GPU i on rail i).
#pragma once

#include <cstdint>
#include <map>
#include <utility>

namespace sim {

struct ClusterSpec;
struct ParallelPlan;

// The NIC (rail) a node's GPU `local` sends through: its own when the node has a NIC per GPU (or
// more), else local · nics / gpus (GPUs share NICs in order).
inline int64_t rail_of(int64_t local, int64_t gpus_per_node, int64_t nics_per_node) {
  return nics_per_node >= gpus_per_node ? local : local * nics_per_node / gpus_per_node;
}

struct RankCoord {
  int64_t tp = 0, cp = 0, pp = 0, dp = 0;
};

class Placement {
 public:
  Placement(const ClusterSpec& cluster, const ParallelPlan& plan);

  int64_t gpu(const RankCoord& c) const { return c.tp + tp_ * (c.cp + cp_ * (c.pp + pp_ * c.dp)); }
  // The inverse of gpu(): the coordinates of GPU `gpu` in [0, tp*cp*pp*dp).
  RankCoord coord(int64_t gpu) const {
    return {gpu % tp_, gpu / tp_ % cp_, gpu / (tp_ * cp_) % pp_, gpu / (tp_ * cp_ * pp_)};
  }
  int64_t node(int64_t gpu) const { return gpu / gpus_per_node_; }
  int64_t local(int64_t gpu) const { return gpu % gpus_per_node_; }
  // Global NIC index (node * nics_per_node + rail) that GPU `gpu` sends through.
  int64_t nic(int64_t gpu) const;
  int64_t pod(int64_t gpu) const { return gpu / pod_gpus_; }
  bool same_node(int64_t a, int64_t b) const { return node(a) == node(b); }
  // How many GPUs of a node send through one NIC (1 when every GPU has its own).
  double gpus_per_nic() const {
    return nics_per_node_ >= gpus_per_node_ ? 1.0 : double(gpus_per_node_) / double(nics_per_node_);
  }
  // How many ranks of pipeline rank `pp_rank` (all tp, cp, dp indices: one rank class, doing the
  // same transfer at the same time) send through the NIC of GPU `gpu`.
  int64_t class_peers_on_nic(int64_t pp_rank, int64_t gpu) const;

 private:
  int64_t tp_, cp_, pp_, dp_;
  mutable std::map<std::pair<int64_t, int64_t>, int64_t> peers_;  // (pp rank, nic) -> count
  int64_t gpus_per_node_, nics_per_node_, pod_gpus_;
};

}  // namespace sim
