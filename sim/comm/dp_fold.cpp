#include "sim/comm/dp_fold.hpp"

#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "sim/comm/comm_plan.hpp"
#include "sim/comm/shared_links.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/fabric.hpp"

namespace sim {

std::shared_ptr<const DpFold> fold_dp_flows(const Scenario& s, const CommPlan& comm, const Placement& place,
                                            const std::vector<std::vector<GradBucket>>& buffers,
                                            const std::vector<double>& capacity) {
  using Key = std::tuple<CommShape, std::vector<std::vector<double>>, std::vector<double>>;
  Key key{comm_shape(comm.fabric().serial(), s), {}, capacity};
  for (const auto& rank : buffers) {
    std::get<1>(key).emplace_back();
    for (const GradBucket& b : rank) {
      std::get<1>(key).back().push_back(b.dense.value);
      std::get<1>(key).back().push_back(b.expert.value);
      std::get<1>(key).back().push_back(static_cast<double>(b.kind));
    }
  }
  static std::mutex mutex;
  static std::optional<Key> last_key;
  static std::shared_ptr<const DpFold> last;
  std::lock_guard<std::mutex> lock(mutex);
  if (last && last_key == key) return last;
  last.reset();  // one at a time
  auto fold = std::make_shared<DpFold>();
  fold->set = dp_flow_set(comm, s.plan, place, buffers, capacity, fold->flows, fold->variants);
  // Groups are told apart by rank and tensor-parallel index: a shared link's representatives
  // stand for the groups that launch together (the rails of a rank) and for those that do not.
  std::vector<int64_t> group, variant, launch, by;
  for (size_t i = 0; i < fold->flows.size(); ++i) {
    const DpFlow& f = fold->flows[i];
    group.push_back(fold->set.flows[i].rank * grad_groups(s.plan) + f.group);
    variant.push_back(f.variant);
    launch.push_back(f.launch);
  }
  const LinkSplit split = split_shared_links(fold->set, group, variant, capacity);
  fold->keep = fold_ring_flows(fold->set, &fold->component, &by);
  // Each representative's share, carried by the kept link that stands for it (its own, or the
  // corresponding link of its twin's representative).
  std::unordered_map<uint64_t, uint64_t> stand_in;
  for (size_t i = 0; i < fold->flows.size(); ++i) {
    const auto& mine = fold->set.routes[static_cast<size_t>(fold->set.flows[i].route)].links;
    const auto& theirs = fold->set.routes[static_cast<size_t>(fold->set.flows[static_cast<size_t>(by[i])].route)].links;
    for (size_t k = 0; k < mine.size(); ++k)
      if (mine[k] / 2 >= capacity.size()) stand_in.emplace(mine[k], theirs[k]);
  }
  for (const SharedLink& l : split.shared) {
    fold->shared.push_back({l.capacity, {}});
    for (const auto& [rep, weight] : l.shares) {
      const uint64_t at = stand_in.at(rep);
      fold->shared.back().shares.push_back({at, weight, at == rep});
    }
  }
  fold->quotient = quotient_flows(fold->set, fold->keep, launch, split.capacity, fold->shared);
  last = std::move(fold);
  last_key = std::move(key);
  return last;
}

}  // namespace sim
