#include "sim/cost/expert_routing.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace sim {
namespace {

// C(a - b, k) / C(a, k): that k distinct picks among a miss b given ones.
double misses(double a, double b, int64_t k) {
  double p = 1.0;
  for (int64_t i = 0; i < k; ++i) p *= std::max(0.0, (a - b - double(i)) / (a - double(i)));
  return p;
}

}  // namespace

TokenSpread token_spread(int64_t experts, int64_t top_k, int64_t node_limit, int64_t nodes, int64_t gpus_per_node) {
  SIM_ASSERT(nodes > 0 && gpus_per_node > 0 && experts % (nodes * gpus_per_node) == 0 && top_k <= experts,
             "experts spread evenly over the group's GPUs");
  const int64_t picked = node_limit > 0 ? std::min(node_limit, nodes) : nodes;
  const double on_node = double(experts / nodes), on_gpu = double(experts / (nodes * gpus_per_node));
  const double among = on_node * double(picked), chosen = double(picked) / double(nodes);
  const int64_t k = std::min<int64_t>(top_k, static_cast<int64_t>(among));
  return {chosen * (1.0 - misses(among, on_node, k)), chosen * (1.0 - misses(among, on_gpu, k))};
}

}  // namespace sim
