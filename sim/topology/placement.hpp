// Where each rank of a plan runs. A rank's coordinates (tp_i, cp_i, pp_i, dp_i) give its global
// rank by the plan's dimension order (`parallelism.placement`, fastest first); the default is
// Megatron-LM's, tensor parallel fastest (inside a node), then context, pipeline, data parallel:
//   global rank g = tp_i + tp * (cp_i + cp * (pp_i + pp * dp_i))            ("tp-cp-pp-dp")
// and in general g = Σ_d i_d · stride_d, stride_d the product of the sizes of the dimensions
// before d in the order (e.g. "tp-dp-pp-cp": g = tp_i + tp * (dp_i + dp * (pp_i + pp * cp_i)),
// a stage's tp·dp ranks on consecutive GPUs). Global rank g runs on GPU g, or on gpu_of_rank[g]
// when the plan lists GPUs explicitly (a permutation of [0, tp·cp·pp·dp), checked by
// parse_scenario). Both gpu() and its inverse coord() are O(1).
// GPU g sits on node g / gpus_per_node at local index g % gpus_per_node, which uses NIC
// local * nics_per_node / gpus_per_node of its node (rail-optimised: GPU i on rail i), and in
// NVLink domain g / domain_gpus (ClusterSpec::domain_gpus: the node, or a GB200 NVL72 rack of 72).
// What is physical hardware of a node (its NICs, its failures) goes by node(); what stays on
// NVLink, and which GPUs NCCL counts as one node, by domain().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

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

  // The GPU that the rank at `c` runs on.
  int64_t gpu(const RankCoord& c) const {
    const int64_t g = c.tp * stride_[0] + c.cp * stride_[1] + c.pp * stride_[2] + c.dp * stride_[3];
    return gpu_of_rank_.empty() ? g : gpu_of_rank_[static_cast<size_t>(g)];
  }
  // The inverse of gpu(): the coordinates of the rank on GPU `gpu` in [0, tp*cp*pp*dp).
  RankCoord coord(int64_t gpu) const {
    const int64_t g = rank_of_gpu_.empty() ? gpu : rank_of_gpu_[static_cast<size_t>(gpu)];
    return {g / stride_[0] % size_[0], g / stride_[1] % size_[1], g / stride_[2] % size_[2], g / stride_[3] % size_[3]};
  }
  int64_t node(int64_t gpu) const { return gpu / gpus_per_node_; }
  int64_t local(int64_t gpu) const { return gpu % gpus_per_node_; }
  // Global NIC index (node * nics_per_node + rail) that GPU `gpu` sends through.
  int64_t nic(int64_t gpu) const;
  int64_t pod(int64_t gpu) const { return gpu / pod_gpus_; }
  bool same_node(int64_t a, int64_t b) const { return node(a) == node(b); }
  // The NVLink domain of GPU `gpu`: a transfer between two GPUs of one stays on NVLink.
  int64_t domain(int64_t gpu) const { return gpu / domain_gpus_; }
  bool same_domain(int64_t a, int64_t b) const { return domain(a) == domain(b); }
  // How many GPUs of a node send through one NIC (1 when every GPU has its own).
  double gpus_per_nic() const {
    return nics_per_node_ >= gpus_per_node_ ? 1.0 : double(gpus_per_node_) / double(nics_per_node_);
  }
  // How many ranks of pipeline rank `pp_rank` (all tp, cp, dp indices: one rank class, doing the
  // same transfer at the same time) send through the NIC of GPU `gpu`.
  int64_t class_peers_on_nic(int64_t pp_rank, int64_t gpu) const;

 private:
  std::array<int64_t, 4> size_{}, stride_{};                      // per dimension, indexed tp, cp, pp, dp
  std::vector<int64_t> gpu_of_rank_, rank_of_gpu_;                // explicit placement and its inverse; empty: identity
  mutable std::map<std::pair<int64_t, int64_t>, int64_t> peers_;  // (pp rank, nic) -> count
  int64_t gpus_per_node_, domain_gpus_, nics_per_node_, pod_gpus_;
};

}  // namespace sim
