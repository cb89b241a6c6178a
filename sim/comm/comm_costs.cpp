#include "sim/comm/comm_costs.hpp"

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <type_traits>

#include "sim/comm/ring_channels.hpp"
#include "sim/scenario/scenario.hpp"

namespace sim {

namespace {

// The last plan shape's memo (CommCosts::Memo): one at a time, as Fabric::of keeps its fabric.
std::shared_ptr<void> shared_memo(uint64_t fabric, const Scenario& s,
                                  const std::function<std::shared_ptr<void>()>& make) {
  const CommShape key = comm_shape(fabric, s);
  static std::mutex mutex;
  static std::optional<CommShape> last_key;
  static std::shared_ptr<void> last;
  std::lock_guard<std::mutex> lock(mutex);
  if (!last || last_key != key) {
    last = make();
    last_key = key;
  }
  return last;
}

// The memo's value for `key`, computed by `compute` on a miss and stored only once computed: a
// computation that throws (a forced algorithm a group cannot run) leaves no entry behind, so the
// next plan of the same shape meets the same refusal instead of a default value.
template <class Map, class Key, class F>
const typename Map::mapped_type& memoised(Map& map, const Key& key, F compute) {
  const auto it = map.find(key);
  if (it != map.end()) return it->second;
  return map.emplace(key, compute()).first->second;
}

}  // namespace

CommCosts::CommCosts(const Scenario& s)
    : s_(s), place_(s.cluster, s.plan), fabric_(Fabric::of(s.cluster)), plan_(s, place_, *fabric_) {
  memo_ = std::static_pointer_cast<Memo>(
      shared_memo(fabric_->serial(), s, [] { return std::static_pointer_cast<void>(std::make_shared<Memo>()); }));
}

CollectiveChoice CommCosts::dp_choice(int64_t rank, Bytes buffer, CollectiveKind kind) const {
  return memoised(memo_->dp_choice, std::make_tuple(rank, static_cast<int>(kind), buffer.value),
                  [&] { return plan_.choose(kind, dp_group(s_.plan, place_, rank, 0), buffer); });
}

Seconds CommCosts::group_collective(CommGroup group, CollectiveKind kind, Bytes buffer) const {
  return memoised(memo_->group_cost, std::make_tuple(static_cast<int>(group), static_cast<int>(kind), buffer.value),
                  [&] {
                    const CommOp op = plan_.collective(kind, model_group(s_.plan, place_, group), buffer);
                    return op.choice.latency + plan_.route_latency(op.flows) + plan_.transfer_time(op.flows);
                  });
}

CollectiveAlgo CommCosts::group_all_reduce_algo(CommGroup group, Bytes buffer) const {
  return plan_.choose(CollectiveKind::ALL_REDUCE, model_group(s_.plan, place_, group), buffer).algo;
}

CollectiveAlgo CommCosts::dp_all_reduce_algo(int64_t rank, Bytes buffer) const { return dp_choice(rank, buffer).algo; }

Seconds CommCosts::p2p(int64_t from_rank, int64_t to_rank, Bytes bytes) const {
  const int64_t a = place_.gpu({0, 0, from_rank, 0}), b = place_.gpu({0, 0, to_rank, 0});
  const FlowCost& cost = memoised(memo_->p2p_cost, std::make_pair(from_rank, to_rank), [&] {
    constexpr double kProbe = 1 << 20;  // bytes per member; the time scales with them
    const std::vector<GpuFlow> flows = plan_.class_transfers(from_rank, to_rank, Bytes(kProbe));
    // The engine sends the representative's transfer (a to b): its route's latency.
    return FlowCost{plan_.transfer_time(flows).value / kProbe, plan_.route_latency({flows.front()})};
  });
  return plan_.send_latency(a, b) + cost.route_latency + Seconds(bytes.value * cost.per_byte);
}

Seconds CommCosts::dp_all_reduce(int64_t rank, const GradBucket& buffer) const {
  return dp_latency(rank, buffer) + dp_route_latency(rank, buffer) + dp_transfer(rank, buffer);
}

// With hybrid sharding a bucket's shard-group collectives and then its replicas' all-reduce, one
// after the other (ring_channels.hpp, grad_groups).
Seconds CommCosts::dp_latency(int64_t rank, const GradBucket& buffer) const {
  const auto replicas = replica_choice(rank, buffer.dense);
  const Seconds dense =
      dp_choice(rank, buffer.dense, buffer.kind).latency + (replicas ? replicas->latency : Seconds(0));
  const auto experts = expert_choice(rank, buffer.expert, buffer.kind);
  return experts ? std::max(dense, experts->latency) : dense;  // the two groups' at once
}

std::optional<CollectiveChoice> CommCosts::expert_choice(int64_t rank, Bytes experts, CollectiveKind kind) const {
  const auto& pl = s_.plan;
  if (pl.ep <= 1 || experts.value <= 0) return std::nullopt;
  for (int64_t g = 0; g < grad_groups(pl); ++g)
    if (reduces_experts(pl, g)) return plan_.choose(kind, dp_group(pl, place_, rank, g), experts);
  return std::nullopt;
}

std::optional<CollectiveChoice> CommCosts::replica_choice(int64_t rank, Bytes buffer) const {
  const auto& pl = s_.plan;
  if (pl.replicas() <= 1) return std::nullopt;
  return memoised(memo_->replica_choice, std::make_pair(rank, buffer.value), [&]() -> std::optional<CollectiveChoice> {
    for (int64_t g = 0; g < grad_groups(pl); ++g)
      if (replicates(pl, g))
        return plan_.choose(CollectiveKind::ALL_REDUCE, dp_group(pl, place_, rank, g),
                            buffer * grad_group_share(pl, g));
    return std::nullopt;
  });
}

const CommCosts::FlowCost& CommCosts::dp_cost(int64_t rank, const GradBucket& buffer) const {
  const auto& pl = s_.plan;
  const CollectiveChoice ch = dp_choice(rank, buffer.dense, buffer.kind);
  const auto replicas = replica_choice(rank, buffer.dense);
  const auto experts = expert_choice(rank, buffer.expert, buffer.kind);
  const auto algo = [](const std::optional<CollectiveChoice>& c) { return c ? static_cast<int>(c->algo) : -1; };
  const auto protocol = [](const std::optional<CollectiveChoice>& c) { return c ? static_cast<int>(c->protocol) : -1; };
  // Per byte of the bucket, which depends on its experts' part where they have groups of their own.
  const double expert_share = experts ? buffer.expert.value / buffer.total() : 0.0;
  return memoised(
      memo_->dp_cost,
      std::make_tuple(rank, static_cast<int>(buffer.kind), static_cast<int>(ch.algo), static_cast<int>(ch.protocol),
                      algo(replicas), protocol(replicas), algo(experts), protocol(experts), expert_share),
      [&] {
        std::vector<GpuFlow> flows;
        for (int64_t g = 0; g < grad_groups(pl); ++g) {
          const Bytes part = group_buffer(pl, g, buffer);
          if (part.value <= 0) continue;
          const CommOp op = plan_.collective(buffer.kind, dp_group(pl, place_, rank, g), part);
          flows.insert(flows.end(), op.flows.begin(), op.flows.end());
        }
        return FlowCost{plan_.transfer_time(flows).value / buffer.total(), plan_.route_latency(flows)};
      });
}

Seconds CommCosts::dp_transfer(int64_t rank, const GradBucket& buffer) const {
  if (s_.plan.grad_group_size() <= 1 || buffer.total() <= 0) return Seconds(0);
  return Seconds(buffer.total() * dp_cost(rank, buffer).per_byte);
}

Seconds CommCosts::dp_route_latency(int64_t rank, const GradBucket& buffer) const {
  if (s_.plan.grad_group_size() <= 1 || buffer.total() <= 0) return Seconds(0);
  return dp_cost(rank, buffer).route_latency;
}

}  // namespace sim
