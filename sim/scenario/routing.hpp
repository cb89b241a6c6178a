// How an MoE layer's router spreads the tokens over the experts -- scenario key `training.routing`,
// printed by `trainsim list`. The ranks of an expert-parallel group wait for one another at each
// dispatch and combine, so the busiest one sets each exchange's and each expert GEMM's time:
// busiest_rank_load says how much more work it has than the mean.
#pragma once

#include <vector>

#include "sim/scenario/named_choice.hpp"

namespace sim {

struct Scenario;

// BALANCED: every expert takes the same tokens (Megatron-Core's --moe-router-force-load-balancing,
// what NVIDIA's published MoE tables run). HISTOGRAM: the experts take the shares of
// `training.expert_load`, a measured per-expert histogram (e.g. the token counts a router logged),
// the same in every layer. ZIPF: a drawn one: the experts' popularity falls as 1 / rank^s (Zipf's
// law, s = `training.routing_skew`), the ranks dealt to the experts by a shuffle seeded by the
// scenario's seed, the same in every layer.
enum class Routing { BALANCED, HISTOGRAM, ZIPF };

using RoutingChoice = NamedChoice<Routing>;

const std::vector<RoutingChoice>& routings();

// Each expert's share of the routed tokens, unnormalised: the histogram's, or Zipf's drawn for the
// scenario's seed; empty when balanced (or on a dense model).
std::vector<double> expert_loads(const Scenario& s);

// The busiest expert-parallel rank's token copies over the mean rank's: 1 when balanced. Otherwise
// rank j holds experts j E/ep .. (j+1) E/ep - 1 (model_group's order) and takes their loads
// (expert_loads), each normalised to a mean of 1 per expert; a capacity factor c
// (`training.capacity_factor`, GShard's) drops what any expert takes beyond c, so that the busiest
// rank's work is max_j sum of min(load, c) over its experts, over E/ep.
double busiest_rank_load(const Scenario& s);

}  // namespace sim
