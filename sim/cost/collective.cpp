#include "sim/cost/collective.hpp"

namespace sim {

const char* to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::ALL_REDUCE: return "all-reduce";
    case CollectiveKind::ALL_GATHER: return "all-gather";
    case CollectiveKind::REDUCE_SCATTER: return "reduce-scatter";
    case CollectiveKind::ALL_TO_ALL: return "all-to-all";
    case CollectiveKind::SEND_RECV: return "send-recv";
  }
  return "?";
}

RingCost ring_cost(CollectiveKind kind, Bytes buffer, int64_t n) {
  if (kind == CollectiveKind::SEND_RECV) return {buffer, 1};
  if (n <= 1) return {Bytes(0), 0};
  const double frac = static_cast<double>(n - 1) / static_cast<double>(n);
  if (kind == CollectiveKind::ALL_REDUCE) return {buffer * (2.0 * frac), 2 * (n - 1)};
  return {buffer * frac, n - 1};
}

double busbw_factor(CollectiveKind kind, int64_t n) {
  if (kind == CollectiveKind::SEND_RECV) return 1.0;
  const double frac = static_cast<double>(n - 1) / static_cast<double>(n);
  return kind == CollectiveKind::ALL_REDUCE ? 2.0 * frac : frac;
}

Seconds collective_latency(CollectiveKind kind, int64_t n, bool scale_out, const CollectiveConstants& c) {
  RingCost r = ring_cost(kind, Bytes(0), n);
  if (r.steps == 0) return Seconds(0);
  Seconds step = scale_out ? c.scale_out_step_latency : c.scale_up_step_latency;
  return c.base_latency + step * static_cast<double>(r.steps);
}

Seconds ring_time_idle(CollectiveKind kind, Bytes buffer, int64_t n, BytesPerSecond link_bandwidth, bool scale_out,
                       const CollectiveConstants& c) {
  RingCost r = ring_cost(kind, buffer, n);
  if (r.steps == 0) return Seconds(0);
  double eff = scale_out ? c.scale_out_efficiency : c.scale_up_efficiency;
  return collective_latency(kind, n, scale_out, c) + r.bytes_per_rank / (link_bandwidth * eff);
}

const std::vector<CollectiveAlgoEntry>& collective_algorithms() {
  static const std::vector<CollectiveAlgoEntry> entries = {
      {CollectiveAlgo::RING, "ring",
       "NCCL ring: every rank sends to its successor; runs all-reduce, all-gather, reduce-scatter, all-to-all, "
       "send/recv"},
      {CollectiveAlgo::TREE, "tree",
       "NCCL double binary tree across nodes, a chain inside each: reduce up, broadcast down; all-reduce only"},
      {CollectiveAlgo::NVLS, "nvls",
       "NVLink SHARP: the NVSwitch reduces; all-reduce inside one node whose NVSwitch has it (nvls_* constants)"},
      {CollectiveAlgo::NVLS_TREE, "nvls_tree",
       "NVLink SHARP inside each node, double binary tree between nodes; all-reduce only, two or more nodes"},
  };
  return entries;
}

const char* to_string(CollectiveAlgo a) {
  for (const auto& e : collective_algorithms())
    if (e.algo == a) return e.name;
  return "ring";
}

std::optional<CollectiveAlgo> parse_algo(const std::string& name) {
  for (const auto& e : collective_algorithms())
    if (name == e.name) return e.algo;
  return std::nullopt;
}

}  // namespace sim
