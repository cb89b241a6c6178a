#include "sim/scenario/routing.hpp"

#include <algorithm>
#include <numeric>

#include "sim/scenario/scenario.hpp"

namespace sim {

const std::vector<RoutingChoice>& routings() {
  static const std::vector<RoutingChoice> entries{
      {Routing::BALANCED, "balanced",
       "every expert takes the same tokens (Megatron-Core's --moe-router-force-load-balancing; NVIDIA's published "
       "MoE tables)"},
      {Routing::HISTOGRAM, "histogram",
       "the experts take the shares of training.expert_load, a measured per-expert histogram; the busiest "
       "expert-parallel rank sets each exchange's and expert GEMM's time; training.capacity_factor drops tokens "
       "beyond it"},
  };
  return entries;
}

double busiest_rank_load(const Scenario& s) {
  const auto& t = s.training;
  if (!s.model.moe || t.routing == Routing::BALANCED || t.expert_load.empty()) return 1.0;
  const auto experts = static_cast<int64_t>(t.expert_load.size());
  const double mean = std::accumulate(t.expert_load.begin(), t.expert_load.end(), 0.0) / double(experts);
  const int64_t per_rank = experts / s.plan.ep;
  double busiest = 0;
  for (int64_t j = 0; j < s.plan.ep; ++j) {
    double load = 0;
    for (int64_t e = j * per_rank; e < (j + 1) * per_rank; ++e) {
      const double l = t.expert_load[static_cast<size_t>(e)] / mean;
      load += t.capacity_factor > 0 ? std::min(l, t.capacity_factor) : l;
    }
    busiest = std::max(busiest, load / double(per_rank));
  }
  return busiest;
}

}  // namespace sim
