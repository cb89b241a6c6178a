#include "sim/workload/plan_space.hpp"

#include "sim/scenario/scenario.hpp"

namespace sim {
namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> low, high;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      low.push_back(d);
      if (d != n / d) high.push_back(n / d);
    }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

}  // namespace

std::vector<PlanChoice> plan_space(const Scenario& s) {
  const auto& m = s.model;
  const int64_t cp = s.plan.cp;
  std::vector<PlanChoice> out;
  for (int64_t tp : divisors(s.cluster.domain_gpus())) {  // tensor parallel inside NVLink
    if (m.heads % tp != 0 || m.kv_heads % tp != 0 || m.ffn_hidden % tp != 0) continue;
    if (s.cluster.gpus % (tp * cp) != 0) continue;
    for (int64_t pp : divisors(s.cluster.gpus / (tp * cp))) {
      if (pp > m.layers) break;
      const int64_t dp = s.cluster.gpus / (tp * cp * pp);
      if (s.training.global_batch % dp != 0 || (dp * cp) % s.plan.ep != 0) continue;
      for (bool sp : {false, true}) {
        if (sp && tp == 1) continue;
        for (Recompute r : {Recompute::NONE, Recompute::SELECTIVE, Recompute::FULL})
          out.push_back(PlanChoice{tp, pp, dp, sp, r});
        // torchtitan's per-op checkpointing where the scenario runs it (its framework does), on
        // the plans that can run it: sequence parallel when tp > 1 (scenario.cpp).
        if (s.training.recompute == Recompute::OP && (tp == 1 || sp))
          out.push_back(PlanChoice{tp, pp, dp, sp, Recompute::OP});
      }
    }
  }
  return out;
}

}  // namespace sim
