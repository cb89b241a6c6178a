#include "sim/engine/folded_nic_penalty.hpp"

#include <algorithm>

namespace sim {

double FoldedNicPenalty::factor(int64_t a, int64_t b) const {
  if (place_.same_domain(a, b)) return 1.0;  // stays on NVLink
  return std::max(faults_.slowdown(FaultTarget::NIC, place_.nic(a)), faults_.slowdown(FaultTarget::NIC, place_.nic(b)));
}

double FoldedNicPenalty::operator()(int64_t from_pp, int64_t to_pp) {
  if (!faults_.has_slow()) return 1.0;
  auto [it, fresh] = cache_.try_emplace({from_pp, to_pp}, 1.0);
  if (!fresh) return it->second;
  double worst = 1.0;
  for (int64_t d = 0; d < plan_.dp; ++d)
    for (int64_t c = 0; c < plan_.cp; ++c)
      for (int64_t t = 0; t < plan_.tp; ++t)
        worst = std::max(worst, factor(place_.gpu({t, c, from_pp, d}), place_.gpu({t, c, to_pp, d})));
  it->second = std::max(1.0, worst / factor(place_.gpu({0, 0, from_pp, 0}), place_.gpu({0, 0, to_pp, 0})));
  return it->second;
}

}  // namespace sim
