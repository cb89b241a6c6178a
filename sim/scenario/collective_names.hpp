// The collectives and NCCL's algorithms by name: what a scenario may force
// (`parallelism.collective_algorithms`) and `trainsim list` prints. How each algorithm is priced
// and chosen lives in sim/cost (collective.hpp, nccl_tuning.hpp, collective_flows.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sim {

enum class CollectiveKind { ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, SEND_RECV };
const char* to_string(CollectiveKind k);

// DEEPEP is no collective of the registry below: the deepep dispatcher's own all-to-all kernels
// (dispatcher.hpp), which the expert-parallel all-to-alls run under it and nothing forces.
enum class CollectiveAlgo { RING, TREE, NVLS, NVLS_TREE, HIERARCHICAL, TORUS, DEEPEP };
const char* to_string(CollectiveAlgo a);
// The registry name ("ring", "tree", "nvls", "nvls_tree", "hierarchical"); std::nullopt for anything
// else.
std::optional<CollectiveAlgo> parse_algo(const std::string& name);

// The registry `trainsim list` prints: each algorithm with its one-line description. `nccl`: NCCL
// runs it. `automatic`: the tuning model (sim/cost/nccl_tuning.hpp) chooses it where it can run
// (NCCL's, and the torus algorithm inside a torus); the others run only where a scenario forces
// them (`parallelism.collective_algorithms`).
struct CollectiveAlgoEntry {
  CollectiveAlgo algo;
  const char* name;
  const char* description;
  bool nccl;
  bool automatic;
};
const std::vector<CollectiveAlgoEntry>& collective_algorithms();

// Why `algo` cannot run `kind` whatever the group ("tree runs all-reduce only, not all-gather"),
// or std::nullopt. What depends on the group (nodes, NVLink SHARP) is nccl_tuning.hpp's cannot_run.
std::optional<std::string> cannot_run_kind(CollectiveAlgo algo, CollectiveKind kind);

}  // namespace sim
