// Where a token's routed experts lie, under forced balance (every expert equally likely): what a
// dispatcher that sends a token once per node and once per GPU (the deepep dispatcher,
// dispatcher.hpp) moves. A token of an expert-parallel group over `nodes` nodes of `gpus_per_node`
// GPUs, whose `experts` are spread evenly over the GPUs, picks `top_k` distinct experts; with
// node-limited routing (`node_limit` M > 0, DeepSeek-V3 §3.2.2) it first picks min(M, nodes) of
// the nodes and then its experts among theirs, each choice uniform.
#pragma once

#include <cstdint>

namespace sim {

struct TokenSpread {
  double node = 0;  // the chance that a token has an expert on a given node of the group
  double gpu = 0;   // the chance that it has one on a given GPU of the group
};

// Closed forms: with A the experts of the nodes a token may pick from and B those of one node (one
// GPU), a token misses them with the hypergeometric chance C(A - B, k) / C(A, k), a given node
// being among its picks with chance min(M, nodes) / nodes.
TokenSpread token_spread(int64_t experts, int64_t top_k, int64_t node_limit, int64_t nodes, int64_t gpus_per_node);

}  // namespace sim
