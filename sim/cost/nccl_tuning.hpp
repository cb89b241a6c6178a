// NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc @5067397, NCCL 2.30.7):
// which collective algorithm and protocol NCCL runs for a collective of a given size on a group
// of a given shape, and the alpha terms that go with it.
//
// For every (algorithm, protocol) that can run the collective on the shape, NCCL estimates
//   time = latency(algo, proto, shape) + buffer / bandwidth(algo, proto, shape)
// and runs the fastest. Here:
//   bandwidth = (the idle-network price of the algorithm's flows at the tiers' Simple-protocol
//                efficiencies, collective_flows) x bandwidth_factor(algo, proto)
// so the engine, which prices those flows on links carrying line rate x the tier efficiency, sees
// the same bandwidth term on an idle network; and
//   latency   = the profile's Simple-protocol constants (CollectiveConstants), taken to LL and
//               LL128 with NCCL's tables: per-step latencies scaled by NCCL's ratio
//               hwLat[algo][proto] / hwLat[Ring][Simple] on the tier, the base latency shifted by
//               NCCL's baseLat[algo][proto] - baseLat[Ring][Simple] (the profile's excess over
//               NCCL's 8.4 us -- launch and host overhead on the measured A100 -- does not depend
//               on the protocol).
// The Simple ring keeps collective_latency exactly, and the Simple ring's flows are exactly the
// engine's ring flows, so large-buffer results do not move.
//
// Algorithms that are not automatic (the registry's HIERARCHICAL) are never chosen, only priced
// where a scenario forces them; they run the Simple protocol. Over tori (a group with the same
// shape in each torus it spans) the TORUS algorithm (torus_collective.hpp; collective_flows.hpp)
// is the only one that runs all-reduce, all-gather and reduce-scatter, with the Simple protocol's
// constants: base + (its torus steps) x scale_up_step_latency + (the rails' ring steps across the
// slices) x scale_out_step_latency; the ring runs the rest (all-to-all and send/recv, routed over
// the torus). HIERARCHICAL's
// latency is one launch's base plus the ring's steps inside a node (per-step NVLink latency) and
// across nodes (per-step network latency): for an all-reduce over N nodes of p GPUs,
//   base + 2(p-1) nvlink_step + 2(N-1) net_step     against the ring's base + 2(Np-1) net_step.
//
// Scope and limitations: no CollNet, PAT or NCCL's per-channel bandwidth caps (perChMax*Bws:
// they bind only when one channel's bandwidth exceeds them and we do not model NCCL's channel
// count); NCCL's multi-node ring "plateau" factor (x1.4 on the Simple ring latency) is left out
// so the Simple ring keeps today's latency; LL's bandwidth cap across nodes is the Intel-CPU row
// of llMaxBws. All-to-all and send/recv are NCCL point-to-point operations, not in tuning.cc: the
// ring with the Simple protocol.
//
// Units: seconds, bytes, bytes/s. A group of one rank costs nothing (ring, Simple, zero latency).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"
#include "sim/scenario/device.hpp"

namespace sim {

// NCCL's protocols: LL (8-byte stores with a flag in each, low latency, half the bandwidth),
// LL128 (128-byte lines with a flag in 8 bytes) and Simple (bulk copies with fences).
enum class Protocol { LL, LL128, SIMPLE };
const char* to_string(Protocol p);

// The GPU generation, which selects NCCL's LL bandwidth cap inside a node (llMaxBws).
enum class GpuArch { VOLTA, AMPERE, HOPPER, BLACKWELL };
// From a device profile's name: "v100" -> VOLTA, "a100"/"a800" -> AMPERE, "b100"/"b200"/"b300"
// -> BLACKWELL, anything else (h100, h200, h800, ...) -> HOPPER.
GpuArch gpu_arch(std::string_view device_name);

// The group a collective runs over. Members are spread evenly over nodes (ranks / nodes each).
struct GroupShape {
  int64_t ranks = 1;
  int64_t nodes = 1;
  bool nvls = false;  // the scale-up domain has NVLink SHARP (ClusterSpec::nvls())
  // Per-GPU line rates, each direction: the GPU's NVLink port and its share of the node's NICs.
  BytesPerSecond scale_up_bandwidth;
  BytesPerSecond scale_out_bandwidth;
  GpuArch arch = GpuArch::HOPPER;
  // A group over tori, the same shape in each (sim/topology/torus.hpp, torus_group_dims; `nodes`
  // counts the tori): that shape. Only the torus algorithm then runs all-reduce, all-gather and
  // reduce-scatter; scale_up_bandwidth is one ICI link's. Empty elsewhere.
  std::vector<int64_t> torus_dims;
  // A group whose nodes circuits of a direct-connect network join in rings (sim/topology/direct.hpp):
  // the rings' strides over its nodes in order (collective_flows.hpp, RING). The ring then runs
  // it, as TopoOpt's NCCL does. Empty elsewhere.
  std::vector<int64_t> ring_strides{};
};

struct CollectiveChoice {
  CollectiveAlgo algo = CollectiveAlgo::RING;
  Protocol protocol = Protocol::SIMPLE;
  Seconds latency;  // the alpha terms, added on top of the flows
  // The protocol's (and for the tree NCCL's) fraction of the Simple-protocol bandwidth the flows
  // are counted at: collective_flows divides their bytes by it. 1 for the Simple ring and NVLS.
  double bandwidth_factor = 1.0;
  Seconds time_idle;  // latency + the flows' price on an idle network: the estimate NCCL ranks by
  // DEEPEP (the deepep dispatcher's all-to-all, collective_flows.hpp): the fraction of the buffer
  // each member sends to its own rail's GPU on each other node, and to each other GPU of its node
  // (the tokens it forwards there), and the factor by which NVLink flows' bytes are counted (the
  // platform's NVLink efficiency over the kernels').
  double node_share = 0, gpu_share = 0, nvlink_factor = 1.0;
};

// Why `algo` cannot run `kind` on `g` ("tree runs all-reduce only", "nvls needs an NVSwitch
// domain with NVLink SHARP", ...), or std::nullopt when it can. The ring runs everything.
std::optional<std::string> cannot_run(CollectiveAlgo algo, CollectiveKind kind, const GroupShape& g);

// NCCL's choice for `kind` over `buffer` bytes (the per-rank buffer for all-reduce; the whole
// gathered/scattered buffer for all-gather and reduce-scatter; see collective.hpp). Ties go to
// the ring, then to the earlier protocol (LL, LL128, Simple). `forced` restricts the choice to
// that algorithm (the protocol is still chosen); throws std::invalid_argument, saying why, when
// it cannot run this kind on this shape.
CollectiveChoice choose_collective(CollectiveKind kind, const GroupShape& g, Bytes buffer, const CollectiveConstants& c,
                                   std::optional<CollectiveAlgo> forced = {});

}  // namespace sim
