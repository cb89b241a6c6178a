#include "sim/cost/nccl_tuning.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/cost/collective_flows.hpp"
#include "sim/cost/torus_collective.hpp"

namespace sim {

namespace {

// NVIDIA/nccl src/graph/tuning.cc @5067397, ncclTunerConstantsDefaults, in us, indexed by
// protocol (LL, LL128, Simple).
constexpr double kBaseLatRing[3] = {6.6, 14.0, 8.4};    // baseLatencies, Ring
constexpr double kBaseLatTree[3] = {6.8, 14.0, 8.4};    // baseLatencies, Tree
constexpr double kNvlinkLatRing[3] = {0.6, 1.9, 3.4};   // hwLatencies NVLINK, Ring
constexpr double kNvlinkLatTree[3] = {0.6, 1.25, 4.0};  // hwLatencies NVLINK, Tree
constexpr double kNetLatRing[3] = {2.7, 4.0, 14.0};     // hwLatencies NET, Ring
constexpr double kNetLatTree[3] = {5.0, 8.5, 14.0};     // hwLatencies NET, Tree
constexpr double kNetLatNvlsTree = 20.9;                // hwLatencies NET, NVLSTree, Simple
constexpr double kRingSimpleBase = 8.4, kRingSimpleNvlink = 3.4, kRingSimpleNet = 14.0;
// llMaxBws (GB/s of bus bandwidth): one node by GPU generation (Volta, Ampere, Hopper, Blackwell;
// column N1), across nodes by CPU vendor (Intel row: 2 nodes, 3 or more).
constexpr double kLlMaxBwOneNode[4] = {39.0, 87.7, 141.0, 2 * 141.0};
constexpr double kLlMaxBwTwoNodes = 39.0, kLlMaxBwMoreNodes = 20.4;
// ncclTopoTuneModel's bandwidth refinements.
constexpr double kRingLl = 0.5, kRingLl128 = 0.92;  // "0.92 /*120.0/128.0*/"
constexpr double kTreeAllReduce = 0.92, kTreeLl = 1.0 / 3.8;
constexpr double kTreeLl128OneNode = 7.0 / 9.0, kTreeLl128 = 120.0 / 128.0;
// treeCorrectionFactor[protocol][log2(bytes / 64)], 64 B to 256 MB (ncclTopoGetAlgoTime).
constexpr double kTreeCorrection[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

constexpr Protocol kProtocols[] = {Protocol::LL, Protocol::LL128, Protocol::SIMPLE};

int64_t log2i(int64_t x) {
  int64_t l = -1;
  for (; x > 0; x >>= 1) ++l;
  return l;
}

bool is_tree(CollectiveAlgo a) { return a == CollectiveAlgo::TREE; }

// The profile's Simple constants taken to protocol p (see the header): the base shifted, the
// per-step latencies scaled.
Seconds base_latency(CollectiveAlgo a, Protocol p, const CollectiveConstants& c) {
  if (p == Protocol::SIMPLE) return c.base_latency;
  const double nccl = (is_tree(a) ? kBaseLatTree : kBaseLatRing)[static_cast<int>(p)];
  return Seconds(std::max(0.0, c.base_latency.value + (nccl - kRingSimpleBase) * 1e-6));
}
Seconds nvlink_step(CollectiveAlgo a, Protocol p, const CollectiveConstants& c) {
  return c.scale_up_step_latency * ((is_tree(a) ? kNvlinkLatTree : kNvlinkLatRing)[int(p)] / kRingSimpleNvlink);
}
Seconds net_step(CollectiveAlgo a, Protocol p, const CollectiveConstants& c) {
  return c.scale_out_step_latency * ((is_tree(a) ? kNetLatTree : kNetLatRing)[int(p)] / kRingSimpleNet);
}

Seconds latency(CollectiveAlgo a, Protocol p, CollectiveKind kind, const GroupShape& g, const CollectiveConstants& c) {
  const int64_t ppn = g.ranks / g.nodes;
  switch (a) {
    case CollectiveAlgo::RING: {
      if (p == Protocol::SIMPLE) return collective_latency(kind, g.ranks, g.nodes > 1, c);
      const int64_t steps = ring_cost(kind, Bytes(0), g.ranks).steps;
      const Seconds step = g.nodes > 1 ? net_step(a, p, c) : nvlink_step(a, p, c);
      return base_latency(a, p, c) + step * static_cast<double>(steps);
    }
    case CollectiveAlgo::TREE:  // 2 ((ppn - 1) intra + log2(nodes) inter)
      return base_latency(a, p, c) + (nvlink_step(a, p, c) * static_cast<double>(ppn - 1) +
                                      net_step(a, p, c) * static_cast<double>(log2i(g.nodes))) *
                                         2.0;
    case CollectiveAlgo::NVLS: return c.nvls_latency;
    case CollectiveAlgo::NVLS_TREE:  // baseLat 0; intra NVLS + 2 log2(nodes) inter
      return c.nvls_latency +
             c.scale_out_step_latency * (kNetLatNvlsTree / kRingSimpleNet * 2.0 * static_cast<double>(log2i(g.nodes)));
    case CollectiveAlgo::HIERARCHICAL:  // one launch: the ring's steps inside a node, then across nodes
      return c.base_latency + c.scale_up_step_latency * static_cast<double>(ring_cost(kind, Bytes(0), ppn).steps) +
             c.scale_out_step_latency * static_cast<double>(ring_cost(kind, Bytes(0), g.nodes).steps);
    case CollectiveAlgo::TORUS:  // the slices' torus steps, then the rails' across slices
      return c.base_latency + c.scale_up_step_latency * static_cast<double>(torus_steps(kind, g.torus_dims)) +
             c.scale_out_step_latency * static_cast<double>(ring_cost(kind, Bytes(0), g.nodes).steps);
    case CollectiveAlgo::DEEPEP:  // the dispatcher's kernels: priced by CommPlan (comm_plan.cpp), never chosen here
      return collective_latency(kind, g.ranks, g.nodes > 1, c);
  }
  return Seconds(0);
}

// The idle-network price of collective_flows at bandwidth_factor 1: the most loaded GPU port
// (NVLink at line x scale_up_efficiency, NIC at line x scale_out_efficiency), in closed form.
Seconds simple_bandwidth_term(CollectiveAlgo a, CollectiveKind kind, const GroupShape& g, Bytes buffer,
                              const CollectiveConstants& c) {
  const double ppn = double(g.ranks / g.nodes);
  const BytesPerSecond up = g.scale_up_bandwidth * c.scale_up_efficiency;
  const BytesPerSecond out = g.scale_out_bandwidth * c.scale_out_efficiency;
  const auto worst = [](Seconds x, Seconds y) { return std::max(x, y); };
  // Each tree edge carries buffer / 2 per direction, spread over the node's ppn NICs.
  const Bytes nic_tree = buffer * (double(dtree_max_edges(g.nodes)) / (2.0 * ppn));
  const Seconds nvls = ppn > 1 ? buffer / (g.scale_up_bandwidth * c.nvls_efficiency) : Seconds(0);
  if (kind == CollectiveKind::ALL_TO_ALL) {  // buffer / n to each peer: ppn - 1 over NVLink, the rest out
    const double n = double(g.ranks);
    Seconds t = (buffer * ((ppn - 1) / n)) / up;
    if (g.nodes > 1) t = worst(t, (buffer * ((n - ppn) / n)) / out);
    return t;
  }
  switch (a) {
    case CollectiveAlgo::RING: {
      const Bytes per_rank = ring_cost(kind, buffer, g.ranks).bytes_per_rank;
      if (g.nodes == 1) return per_rank / up;
      // ppn channels: a GPU sends one hop of each over NVLink but leaves through its NIC in one.
      Seconds t = (per_rank / ppn) / out;
      if (ppn > 1) t = worst(t, (per_rank * ((ppn - 1) / ppn)) / up);
      return t;
    }
    case CollectiveAlgo::TREE: {
      // The chains: every GPU sends buffer / (2 ppn) up and down in ppn - 1 of ppn channels, both trees.
      Seconds t = (buffer * (2.0 * (ppn - 1) / ppn)) / up;
      if (g.nodes > 1) t = worst(t, nic_tree / out);
      return t;
    }
    case CollectiveAlgo::NVLS: return nvls;
    case CollectiveAlgo::NVLS_TREE: return worst(nvls, nic_tree / out);
    case CollectiveAlgo::HIERARCHICAL: {
      // Every GPU sends the node's ring share over NVLink and its rail's ring share, of buffer/ppn
      // over the nodes, through its NIC; the phases are pipelined, so the slower port sets the pace.
      const Seconds intra = ring_cost(kind, buffer, g.ranks / g.nodes).bytes_per_rank / up;
      if (g.nodes == 1) return intra;
      return worst(intra, ring_cost(kind, buffer / ppn, g.nodes).bytes_per_rank / out);
    }
    case CollectiveAlgo::TORUS: {
      // Each (member, neighbour) pair on a link of its own: the busiest pair's bytes.
      Bytes most;
      for (const MemberFlow& f : torus_collective_flows(kind, g.torus_dims, buffer)) most = std::max(most, f.bytes);
      if (g.nodes == 1) return most / up;
      return worst(most / up, ring_cost(kind, buffer / ppn, g.nodes).bytes_per_rank / out);
    }
    case CollectiveAlgo::DEEPEP: break;  // the dispatcher's kernels: priced by CommPlan (comm_plan.cpp)
  }
  return Seconds(0);
}

double ll_max_bus_bandwidth(const GroupShape& g) {
  if (g.nodes == 1) return kLlMaxBwOneNode[static_cast<int>(g.arch)] * 1e9;
  return (g.nodes == 2 ? kLlMaxBwTwoNodes : kLlMaxBwMoreNodes) * 1e9;
}

// NCCL's bandwidth refinements for (algorithm, protocol), relative to the Simple flows' bandwidth.
double bandwidth_factor(CollectiveAlgo a, Protocol p, CollectiveKind kind, const GroupShape& g, Bytes buffer,
                        Seconds simple) {
  if (a == CollectiveAlgo::RING) {
    if (p == Protocol::LL128) return kRingLl128;
    if (p == Protocol::SIMPLE) return 1.0;
    // NCCL's bus bandwidth of the ring: bytes per rank over time.
    const double bus = ring_cost(kind, buffer, g.ranks).bytes_per_rank.value / simple.value;
    return std::min(kRingLl, ll_max_bus_bandwidth(g) / bus);
  }
  if (a != CollectiveAlgo::TREE) return 1.0;
  double f = kTreeAllReduce;
  if (p == Protocol::LL) {
    const double bus = 2.0 * buffer.value / simple.value;  // tree: algbw = busbw / 2
    f = std::min(f * kTreeLl, ll_max_bus_bandwidth(g) / bus);
  } else if (p == Protocol::LL128) {
    f *= g.nodes == 1 ? kTreeLl128OneNode : kTreeLl128;
  }
  const int64_t log_size = log2i(static_cast<int64_t>(buffer.value) >> 6);
  if (log_size >= 0 && log_size < 23) f *= kTreeCorrection[static_cast<int>(p)][log_size];
  return f;
}

bool runs_protocol(CollectiveAlgo a, Protocol p, CollectiveKind kind) {
  if (a == CollectiveAlgo::NVLS || a == CollectiveAlgo::NVLS_TREE || a == CollectiveAlgo::HIERARCHICAL ||
      a == CollectiveAlgo::TORUS)
    return p == Protocol::SIMPLE;
  if (kind == CollectiveKind::ALL_TO_ALL || kind == CollectiveKind::SEND_RECV) return p == Protocol::SIMPLE;
  return true;
}

}  // namespace

const char* to_string(Protocol p) {
  switch (p) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::SIMPLE: return "Simple";
  }
  return "?";
}

GpuArch gpu_arch(std::string_view name) {
  const auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
  if (has("v100")) return GpuArch::VOLTA;
  if (has("a100") || has("a800")) return GpuArch::AMPERE;
  if (has("b100") || has("b200") || has("b300")) return GpuArch::BLACKWELL;
  return GpuArch::HOPPER;
}

std::optional<std::string> cannot_run(CollectiveAlgo algo, CollectiveKind kind, const GroupShape& g) {
  const bool torus_kind = !cannot_run_kind(CollectiveAlgo::TORUS, kind);
  if (!g.torus_dims.empty() && torus_kind && algo != CollectiveAlgo::TORUS)
    return std::string("inside a torus only torus runs the ") + to_string(kind);
  if (algo == CollectiveAlgo::RING) return std::nullopt;
  const std::string name = to_string(algo);
  if (auto why = cannot_run_kind(algo, kind)) return why;
  switch (algo) {
    case CollectiveAlgo::TREE:
    case CollectiveAlgo::HIERARCHICAL: return std::nullopt;
    case CollectiveAlgo::TORUS:
      if (g.torus_dims.empty()) return std::string("torus runs over groups of one shape in each torus they span");
      return std::nullopt;
    case CollectiveAlgo::NVLS:
      if (!g.nvls) return std::string("nvls needs an NVSwitch domain with NVLink SHARP");
      if (g.nodes > 1) return std::string("nvls runs inside one node; across nodes NCCL runs nvls_tree");
      return std::nullopt;
    case CollectiveAlgo::NVLS_TREE:
      if (!g.nvls) return std::string("nvls_tree needs an NVSwitch domain with NVLink SHARP");
      if (g.nodes < 2) return std::string("nvls_tree needs two or more nodes; inside one node NCCL runs nvls");
      return std::nullopt;
    case CollectiveAlgo::DEEPEP: return std::string("deepep is the deepep dispatcher's all-to-all, not NCCL's");
    case CollectiveAlgo::RING: break;
  }
  return std::nullopt;
}

CollectiveChoice choose_collective(CollectiveKind kind, const GroupShape& g, Bytes buffer, const CollectiveConstants& c,
                                   std::optional<CollectiveAlgo> forced) {
  SIM_ASSERT(g.nodes >= 1 && g.ranks >= g.nodes && g.ranks % g.nodes == 0,
             "a collective group needs the same number of ranks on each of its nodes");
  if (forced)
    if (auto why = cannot_run(*forced, kind, g)) throw std::invalid_argument(*why);
  if (g.ranks < 2) return {forced.value_or(CollectiveAlgo::RING), Protocol::SIMPLE, Seconds(0), 1.0, Seconds(0)};
  SIM_ASSERT(g.ranks == g.nodes || g.scale_up_bandwidth.value > 0, "a group inside nodes needs their NVLink rate");
  SIM_ASSERT(g.nodes == 1 || g.scale_out_bandwidth.value > 0, "a group across nodes needs the network rate");
  std::optional<CollectiveChoice> best;
  for (const auto& entry : collective_algorithms()) {
    const CollectiveAlgo a = entry.algo;
    if ((forced ? a != *forced : !entry.automatic) || cannot_run(a, kind, g)) continue;
    const Seconds simple = simple_bandwidth_term(a, kind, g, buffer, c);
    for (Protocol p : kProtocols) {
      if (!runs_protocol(a, p, kind)) continue;
      CollectiveChoice ch{a, p, latency(a, p, kind, g, c), 1.0, Seconds(0)};
      ch.bandwidth_factor = simple.value > 0 ? bandwidth_factor(a, p, kind, g, buffer, simple) : 1.0;
      ch.time_idle = ch.latency + simple / ch.bandwidth_factor;
      if (!best || ch.time_idle < best->time_idle) best = ch;
    }
  }
  SIM_ASSERT(best.has_value(), "the ring runs every collective");
  return *best;
}

}  // namespace sim
