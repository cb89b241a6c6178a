#include "sim/engine/failure_watch.hpp"

#include <algorithm>

#include "sim/comm/ring_channels.hpp"

namespace sim {

bool FailureWatch::touches(const std::vector<int64_t>& gpus) const {
  if (!failed_at_ || gpus.empty()) return false;
  const int64_t hit = failure_->index;
  if (failure_->target == FaultTarget::GPU) return std::find(gpus.begin(), gpus.end(), hit) != gpus.end();
  bool leaves = false, uses = false;
  for (int64_t g : gpus) {
    leaves = leaves || !place_.same_domain(g, gpus.front());
    uses = uses || place_.nic(g) == hit;
  }
  return leaves && uses;
}

std::vector<RankCoord> FailureWatch::members(const RankCoord& me) const {
  if (full_fidelity_) return {me};
  std::vector<RankCoord> out;
  for (int64_t d = 0; d < plan_.dp; ++d)
    for (int64_t c = 0; c < plan_.cp; ++c)
      for (int64_t t = 0; t < plan_.tp; ++t) out.push_back({t, c, me.pp, d});
  return out;
}

bool FailureWatch::transfer_blocked(const RankCoord& me, int64_t peer_pp) const {
  if (!failed_at_) return false;
  for (const RankCoord& m : members(me)) {
    RankCoord peer = m;
    peer.pp = peer_pp;
    if (touches({place_.gpu(m), place_.gpu(peer)})) return true;
  }
  return false;
}

bool FailureWatch::collective_blocked(const RankCoord& me, CommGroup group) const {
  if (!failed_at_) return false;
  for (const RankCoord& m : members(me)) {
    const std::vector<int64_t> gpus = model_group(plan_, place_, group, m);
    if (gpus.size() > 1 && touches(gpus)) return true;
  }
  return false;
}

int FailureWatch::add_actor() {
  actors_.emplace_back();
  return static_cast<int>(actors_.size()) - 1;
}

void FailureWatch::block(int actor, double now) {
  auto& a = actors_[static_cast<size_t>(actor)];
  if (a.blocked_since < 0) a.blocked_since = now;
}

std::optional<double> FailureWatch::stalled_at() const {
  if (!failed_at_) return std::nullopt;
  bool stalled = false;
  double at = *failed_at_;
  for (const auto& a : actors_)
    if (!a.done) {
      stalled = true;
      at = std::max(at, a.blocked_since);
    }
  return stalled ? std::optional<double>(at) : std::nullopt;
}

}  // namespace sim
