#include "sim/scenario/collective_names.hpp"

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

const std::vector<CollectiveAlgoEntry>& collective_algorithms() {
  static const std::vector<CollectiveAlgoEntry> entries = {
      {CollectiveAlgo::RING, "ring",
       "NCCL ring: every rank sends to its successor; runs all-reduce, all-gather, reduce-scatter, all-to-all, "
       "send/recv",
       true, true},
      {CollectiveAlgo::TREE, "tree",
       "NCCL double binary tree across nodes, a chain inside each: reduce up, broadcast down; all-reduce only", true,
       true},
      {CollectiveAlgo::NVLS, "nvls",
       "NVLink SHARP: the NVSwitch reduces; all-reduce inside one node whose NVSwitch has it (nvls_* constants)", true,
       true},
      {CollectiveAlgo::NVLS_TREE, "nvls_tree",
       "NVLink SHARP inside each node, double binary tree between nodes; all-reduce only, two or more nodes", true,
       true},
      {CollectiveAlgo::HIERARCHICAL, "hierarchical",
       "rail-aware: reduce-scatter inside each node, the same collective per rail across nodes, all-gather inside "
       "each node, pipelined by chunks; not NCCL's (Horovod, MSCCL), so forced only; all-reduce, all-gather, "
       "reduce-scatter",
       false, false},
      {CollectiveAlgo::TORUS, "torus",
       "groups on tori (TPU ICI): in each torus reduce-scatter along each dimension in turn, all-gather back, each "
       "dimension a bidirectional ring, the dimensions kept busy at once; across tori a ring per position over the "
       "data-center network (multislice); all-reduce, all-gather, reduce-scatter; the only one on tori",
       false, true},
  };
  return entries;
}

const char* to_string(CollectiveAlgo a) {
  if (a == CollectiveAlgo::DEEPEP) return "deepep";
  for (const auto& e : collective_algorithms())
    if (e.algo == a) return e.name;
  return "ring";
}

std::optional<CollectiveAlgo> parse_algo(const std::string& name) {
  for (const auto& e : collective_algorithms())
    if (name == e.name) return e.algo;
  return std::nullopt;
}

std::optional<std::string> cannot_run_kind(CollectiveAlgo algo, CollectiveKind kind) {
  if (algo == CollectiveAlgo::DEEPEP) {
    if (kind == CollectiveKind::ALL_TO_ALL) return std::nullopt;
    return std::string("deepep runs the expert-parallel all-to-all only, not ") + to_string(kind);
  }
  if (algo == CollectiveAlgo::RING || kind == CollectiveKind::ALL_REDUCE) return std::nullopt;
  if (algo == CollectiveAlgo::HIERARCHICAL || algo == CollectiveAlgo::TORUS) {
    if (kind == CollectiveKind::ALL_GATHER || kind == CollectiveKind::REDUCE_SCATTER) return std::nullopt;
    return std::string(to_string(algo)) + " runs all-reduce, all-gather and reduce-scatter, not " + to_string(kind);
  }
  return std::string(to_string(algo)) + " runs all-reduce only, not " + to_string(kind);
}

}  // namespace sim
