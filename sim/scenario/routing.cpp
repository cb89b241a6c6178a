#include "sim/scenario/routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "sim/core/rng.hpp"
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
      {Routing::ZIPF, "zipf",
       "a drawn histogram: the experts' popularity falls as 1/rank^s (s = training.routing_skew), the ranks dealt "
       "to the experts by a shuffle seeded by the scenario's seed; otherwise as histogram"},
  };
  return entries;
}

std::vector<double> expert_loads(const Scenario& s) {
  const auto& t = s.training;
  if (!s.model.moe || t.routing == Routing::BALANCED) return {};
  if (t.routing == Routing::HISTOGRAM) return t.expert_load;
  const auto experts = static_cast<size_t>(s.model.moe->experts);
  std::vector<double> loads(experts);
  for (size_t i = 0; i < experts; ++i) loads[i] = std::pow(static_cast<double>(i + 1), -t.routing_skew);
  // Fisher-Yates over the seeded stream (mt19937_64's sequence is the standard's, so the deal is
  // the same on every platform).
  std::mt19937_64 draw = make_stream(s.seed, "routing");
  for (size_t i = experts; i > 1; --i) std::swap(loads[i - 1], loads[draw() % i]);
  return loads;
}

double busiest_rank_load(const Scenario& s) {
  const auto& t = s.training;
  const std::vector<double> shares = expert_loads(s);
  if (shares.empty()) return 1.0;
  const auto experts = static_cast<int64_t>(shares.size());
  const double mean = std::accumulate(shares.begin(), shares.end(), 0.0) / double(experts);
  const int64_t per_rank = experts / s.plan.ep;
  double busiest = 0;
  for (int64_t j = 0; j < s.plan.ep; ++j) {
    double load = 0;
    for (int64_t e = j * per_rank; e < (j + 1) * per_rank; ++e) {
      const double l = shares[static_cast<size_t>(e)] / mean;
      load += t.capacity_factor > 0 ? std::min(l, t.capacity_factor) : l;
    }
    busiest = std::max(busiest, load / double(per_rank));
  }
  return busiest;
}

}  // namespace sim
