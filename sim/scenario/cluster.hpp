// A cluster: GPUs in nodes joined by a scale-up domain (NVLink/NVSwitch) and a scale-out network
// (a rail-optimised fat-tree of NICs).
//
//        spine ........ spine
//        /    \         /    \         (oversubscription applies above a pod of pod_gpus)
//     leaf-0  leaf-1 … leaf-(r-1)         one leaf per rail r = local GPU index
//      |  \      |        |
//     NIC NIC   NIC  …   NIC              nics_per_node per node, GPU i uses NIC i*nics/gpus_per_node
//      |   |     |        |
//    [GPU GPU … GPU]--NVSwitch--          scale_up.bandwidth per GPU per direction
//
// The NVLink domain is a node (DGX/HGX) or scale_up.domain_gpus GPUs of consecutive nodes (GB200
// NVL72: 18 trays of 4 GPUs). Nodes own the NICs and fail as one; the domain decides what stays on
// NVLink and which GPUs NCCL counts as one node.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/device.hpp"

namespace sim {

class ParamReader;

// The largest cluster: beyond this no simulation here fits in memory or time.
inline constexpr int64_t MAX_CLUSTER_GPUS = 1 << 20;
// A direct-connect network's routes are tabled per ordered pair of nodes (sim/topology/direct.hpp):
// 1,024 nodes take 4 MB.
inline constexpr int64_t MAX_DIRECT_NODES = 1024;

// The kinds a cluster may name, each with its one-line description (`trainsim list`); their
// builders are sim/topology/builders.cpp.
struct TopologyKind {
  const char* name;
  const char* description;
};
const std::vector<TopologyKind>& scale_up_kinds();
const std::vector<TopologyKind>& scale_out_kinds();

struct ScaleUp {
  std::string kind = "nvswitch";
  BytesPerSecond bandwidth;  // per GPU per direction
  Seconds latency;
  int64_t domain_gpus = 0;  // GPUs per NVLink domain, whole nodes; 0: a node's (ClusterSpec::domain_gpus)
  bool nvls = true;         // use NVLink SHARP where the device has it (false: NCCL_NVLS_ENABLE=0)
  // kind "torus" or "mesh" (a torus without wrap-around links): each slice's chips along each of
  // its 1 to 3 dimensions (their product is the domain: a slice; the cluster is whole slices), and
  // whether a torus is twisted (k x k x 2k or k x 2k x 2k, sim/topology/torus.hpp). `bandwidth`
  // is then one ICI link's, each direction.
  std::vector<int64_t> dims;
  bool twisted = false;
  // Its electrical cubes (per dimension a divisor of dims; empty: not priced), and whether the
  // links between them run through optical circuit switches (sim/topology/network_cost.hpp).
  std::vector<int64_t> cube;
  bool ocs = false;

  // Whether the chips run XLA (TPUs, on their tori and meshes) rather than CUDA and PyTorch: the
  // one place that decides it.
  bool xla_runtime() const { return chip_grid(); }
  // Whether tensor-parallel communication can overlap its GEMMs without sequence parallelism: on
  // a torus the runtime is XLA's, whose collective matmul decomposes a layer's tensor-parallel
  // collectives into pieces pipelined with the dependent einsum (Wang et al., ASPLOS 2023,
  // "Overlap Communication with Dependent Computation via Decomposition", on TPU v4); Transformer
  // Engine's userbuffers (NVLink) need sequence parallelism.
  bool overlaps_tp_without_sp() const { return xla_runtime(); }
  // Whether the domains are grids of chips on their neighbours' links (kinds "torus" and "mesh").
  bool chip_grid() const { return kind == "torus" || kind == "mesh"; }
  bool wraps() const { return kind == "torus"; }
};

struct ScaleOut {
  std::string kind = "fat-tree";
  int64_t nics_per_node = 1;
  BytesPerSecond nic_bandwidth;  // per NIC per direction
  double oversubscription = 1.0;
  int64_t pod_gpus = 0;  // 0: the whole cluster is one pod
  Seconds latency;       // per hop
  // kind "ocs": an optical circuit switch of `ports` ports (at least one per NIC) joining the NICs
  // by circuits, set per phase of the step, each change leaving them dark for `reconfiguration`
  // (sim/comm/comm_plan.hpp, CommPlan::reconfiguration).
  int64_t ports = 0;
  Seconds reconfiguration;
  // kind "direct": no switch; each node's nics_per_node ports (at least two) carry circuits to
  // other nodes' ports, set once for the job (a patch panel or an OCS that stays put: TopoOpt,
  // Wang et al., NSDI 2023), each a link at nic_bandwidth; traffic between nodes without one hops
  // through the nodes between (host forwarding). `circuits` lists them as node pairs, one entry
  // per circuit. Given `strides` (the user's), node i's circuits go to i + s and i - s mod nodes
  // for each stride s (TopoOpt's TotientPerms rings over all nodes, two ports per stride);
  // without, they are designed for the job's plan (sim/plan/circuit_design.hpp) when it is
  // planned. `ring_strides`: the strides the design's rings take over each all-reduce group's
  // nodes, in the group's order (the collectives' channels run one stride each, both ways).
  std::vector<int64_t> strides{};
  std::vector<std::array<int64_t, 2>> circuits{};
  std::vector<int64_t> ring_strides{};
  bool circuits_designed() const { return kind == "direct" && strides.empty(); }
};

struct ClusterSpec {
  std::string name;
  DeviceSpec device;
  int64_t gpus = 0;
  int64_t gpus_per_node = 0;
  ScaleUp scale_up;
  ScaleOut scale_out;
  // Sustained aggregate bandwidth to checkpoint storage. Default: Llama 3's Tectonic, 2 TB/s
  // sustained for 16,384 GPUs (arXiv:2407.21783, §3.3.4), scaled per GPU: 2e12 / 16384 B/s × gpus.
  BytesPerSecond storage_bandwidth;
  // Between one GPU and its host's memory, per direction (PCIe, Grace's NVLink-C2C), what
  // activation offloading copies over (TrainingSpec::offload_modules); 0: not given, no offload.
  BytesPerSecond host_link;

  int64_t nodes() const { return gpus / gpus_per_node; }
  // GPUs per NVLink domain: scale_up.domain_gpus (0: a node's), at most the cluster. A variant on
  // fewer GPUs that whole domains do not tile (degraded plans) keeps the largest that do.
  int64_t domain_gpus() const;
  // Sets a direct-connect network's circuits and ring strides for the nodes the cluster has now:
  // rings of the user's strides (each taken mod the nodes; when what is left no longer joins them
  // all, as on a variant with fewer nodes, those of totient_strides), or until the planner designs
  // them for a plan, TotientPerms rings over all nodes, two ports per stride. Nothing for another
  // kind.
  void reset_circuits();
  // Whether all-reduces inside an NVLink domain run as NVLS (the device supports it and it is not
  // disabled).
  bool nvls() const { return scale_up.nvls && device.collectives.nvls_efficiency > 0; }
  // Whether optical circuit switches join it (a torus's cubes, or the NICs): what can wire a spare
  // in place of a failed node (recovery "rewire").
  bool optical_switches() const { return scale_up.ocs || scale_out.kind == "ocs"; }

  // `r` is the cluster object (inline, or a named file already loaded); `data_dir` resolves
  // device names to topologies/devices/<name>.json.
  static ClusterSpec parse(const ParamReader& r, const std::string& data_dir);
};

}  // namespace sim
