#include "sim/plan/plan_space.hpp"

#include <utility>

#include "sim/scenario/dispatcher.hpp"
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

std::vector<int64_t> cp_degrees(const Scenario& s, int64_t gpus_left) {
  std::vector<int64_t> out;
  const int64_t seq = s.training.seq_len;
  for (int64_t cp : divisors(gpus_left)) {
    if (cp > 1 && (seq % (2 * cp) != 0 || seq / cp < MIN_CP_TOKENS) && cp != s.plan.cp) continue;
    out.push_back(cp);
  }
  return out;
}

std::vector<Precision> precisions(const Scenario& s) {
  std::vector<Precision> out{s.training.precision};
  const auto& peak = s.cluster.device.dense_peak;
  if (s.training.precision != Precision::FP8 && peak.count(Precision::FP8) && peak.count(Precision::BF16))
    out.push_back(Precision::FP8);
  return out;
}

struct ExpertChoice {
  int64_t ep = 1;
  Dispatcher dispatcher = Dispatcher::ALLTOALL;
  int64_t etp = 0;  // 0: the default
};

// The expert-parallel degrees, dispatchers and expert tensor parallelism of a plan of tp x dp x cp
// ranks a stage (plan_space.hpp): the scenario's on a dense model.
std::vector<ExpertChoice> expert_choices(const Scenario& s, int64_t tp, int64_t dp, int64_t cp) {
  if (!s.model.moe) return {{s.plan.ep, s.plan.dispatcher}};
  std::vector<ExpertChoice> out{{1, s.plan.dispatcher}};
  for (int64_t ep : divisors(s.model.moe->experts)) {
    if (ep == 1 || (tp * dp * cp) % ep != 0) continue;  // folded over tp x dp x cp (ParallelPlan::expert_ranks)
    for (const DispatcherEntry& d : dispatchers()) {
      out.push_back({ep, d.kind});
      // Split over tp, the groups span the dp x cp ranks of one tp index (scenario.cpp).
      if (d.kind == Dispatcher::ALLTOALL && tp > 1 && (dp * cp) % ep == 0 && s.model.moe->expert_ffn_hidden % tp == 0)
        out.push_back({ep, d.kind, tp});
    }
  }
  return out;
}

// The schedules of a plan of `pp` stages (plan_space.hpp): the scenario's (none) and the others.
std::vector<std::optional<Schedule>> schedule_choices(const Scenario& s, int64_t pp) {
  std::vector<std::optional<Schedule>> out{std::nullopt};
  if (pp == 1) return out;
  std::vector<Schedule> others{Schedule::ZB_H1, Schedule::ZB_H2, Schedule::ZB_V};
  if (s.model.moe) others.insert(others.end(), {Schedule::DUALPIPE, Schedule::DUALPIPE_V});
  for (Schedule x : others)
    if (!s.plan.schedule_given || x != s.plan.schedule) out.emplace_back(x);
  return out;
}

}  // namespace

std::vector<PlanChoice> plan_space(const Scenario& s) {
  const auto& m = s.model;
  std::vector<PlanChoice> out;
  const std::vector<Precision> precision = precisions(s);
  for (int64_t tp : divisors(s.cluster.domain_gpus())) {  // tensor parallel inside NVLink
    if (m.heads % tp != 0 || !m.kv_shardable(tp) || m.ffn_hidden % tp != 0) continue;
    if (s.cluster.gpus % tp != 0) continue;
    for (int64_t cp : cp_degrees(s, s.cluster.gpus / tp)) {
      for (int64_t pp : divisors(s.cluster.gpus / (tp * cp))) {
        if (pp > m.layers) break;
        const int64_t dp = s.cluster.gpus / (tp * cp * pp);
        if (s.training.global_batch % dp != 0) continue;
        std::vector<int64_t> zeros{0, 1, 2, 3};
        if (dp == 1) zeros = {s.plan.zero};
        for (const auto& [ep, dispatcher, etp] : expert_choices(s, tp, dp, cp))
          for (const std::optional<Schedule>& schedule : schedule_choices(s, pp))
            for (bool sp : {false, true}) {
              if (sp && tp == 1) continue;
              if (!sp && tp > 1 && ep > 1) continue;  // MoE beside tp runs sequence-parallel (scenario.cpp)
              std::vector<Recompute> recomputes{Recompute::NONE, Recompute::SELECTIVE, Recompute::FULL};
              // torchtitan's per-op checkpointing where the scenario runs it (its framework does), on
              // the plans that can run it: sequence parallel when tp > 1 (scenario.cpp).
              if (s.training.recompute == Recompute::OP && (tp == 1 || sp)) recomputes.push_back(Recompute::OP);
              for (Recompute r : recomputes)
                for (Precision p : precision)
                  for (int64_t z : zeros)
                    out.push_back(PlanChoice{tp, cp, pp, dp, sp, r, p, z, ep, dispatcher, etp, schedule});
            }
      }
    }
  }
  return out;
}

}  // namespace sim
