#include "sim/reliability/degradation.hpp"

#include <algorithm>
#include <cmath>

namespace sim::reliability {

int64_t Degradation::replica_of(int64_t node) const {
  if (replicas_per_node > 1) return node * replicas_per_node;
  return node / (nodes_per_unit * units);
}

int64_t Degradation::unit_of(int64_t node) const {
  if (replicas_per_node > 1) return 0;
  return (node % (nodes_per_unit * units)) / nodes_per_unit;
}

DownSet::DownSet(const Degradation& d)
    : d_(&d),
      down_(static_cast<size_t>(d.nodes), 0),
      replica_down_(static_cast<size_t>(d.dp), 0),
      unit_down_(static_cast<size_t>(d.units), 0),
      unit_histogram_(static_cast<size_t>(d.dp + 1), 0),
      unit_nodes_down_(static_cast<size_t>(d.dp * d.units), 0) {
  clear();
}

size_t DownSet::index(int64_t node) const {
  return node >= 0 && node < d_->nodes ? static_cast<size_t>(node) : size_t{0};
}

void DownSet::clear() {
  std::fill(down_.begin(), down_.end(), 0);
  std::fill(replica_down_.begin(), replica_down_.end(), 0);
  std::fill(unit_down_.begin(), unit_down_.end(), 0);
  std::fill(unit_histogram_.begin(), unit_histogram_.end(), 0);
  std::fill(unit_nodes_down_.begin(), unit_nodes_down_.end(), 0);
  unit_histogram_[0] = d_->units;
  count_ = degraded_replicas_ = adjacent_ = max_down_ = 0;
  template_sum_ = double(d_->dp) * (d_->template_rate.empty() ? 0.0 : d_->template_rate[0]);
}

void DownSet::add(int64_t node) {
  const size_t i = index(node);
  if (down_[i]) return;
  down_[i] = 1;
  ++count_;
  change(static_cast<int64_t>(i), +1);
}

void DownSet::remove(int64_t node) {
  const size_t i = index(node);
  if (!down_[i]) return;
  down_[i] = 0;
  --count_;
  change(static_cast<int64_t>(i), -1);
}

void DownSet::change(int64_t node, int delta) {
  const Degradation& d = *d_;
  if (!d.node_parts.empty()) {
    for (const auto& [rep, u] : d.node_parts[static_cast<size_t>(node)]) change_unit(rep, u, delta);
    return;
  }
  const int64_t u = d.unit_of(node);
  const int64_t first = d.replica_of(node), last = first + std::max<int64_t>(1, d.replicas_per_node);
  for (int64_t rep = first; rep < last && rep < d.dp; ++rep) change_unit(rep, u, delta);
}

void DownSet::change_unit(int64_t rep, int64_t u, int delta) {
  const Degradation& d = *d_;
  const auto template_rate = [&](int64_t j) {
    return j < static_cast<int64_t>(d.template_rate.size()) ? d.template_rate[static_cast<size_t>(j)] : 0.0;
  };
  int64_t& nodes_down = unit_nodes_down_[static_cast<size_t>(rep * d.units + u)];
  const bool was = nodes_down > 0;
  nodes_down += delta;
  const bool is = nodes_down > 0;
  if (was == is) return;  // the unit was already down (or still is)
  const int step = is ? +1 : -1;
  // The replica.
  int64_t& j = replica_down_[static_cast<size_t>(rep)];
  template_sum_ -= template_rate(j);
  if (j == 0 && step > 0) ++degraded_replicas_;
  j += step;
  if (j == 0 && step < 0) --degraded_replicas_;
  template_sum_ += template_rate(j);
  // Adjacent pairs in the replica (REDUNDANT).
  for (int64_t v : {u - 1, u + 1})
    if (v >= 0 && v < d.units && unit_nodes_down_[static_cast<size_t>(rep * d.units + v)] > 0) adjacent_ += step;
  // The unit's copies across replicas.
  int64_t& k = unit_down_[static_cast<size_t>(u)];
  --unit_histogram_[static_cast<size_t>(k)];
  k += step;
  ++unit_histogram_[static_cast<size_t>(k)];
  max_down_ = std::max(max_down_, k);
  while (max_down_ > 0 && unit_histogram_[static_cast<size_t>(max_down_)] == 0) --max_down_;
}

double DownSet::rate() const {
  if (count_ == 0) return 1.0;
  const Degradation& d = *d_;
  switch (d.kind) {
    case Continuing::RECONFIGURE: return std::clamp(template_sum_ / double(d.dp), 0.0, 1.0);
    case Continuing::REDUNDANT: return degraded_replicas_ > 0 ? d.merged_rate : 1.0;
    case Continuing::REROUTE: {
      const int64_t k = max_down_;
      if (k >= d.dp) return 0.0;
      const int64_t top = static_cast<int64_t>(d.reroute_rate.size()) - 1;
      if (k <= top) return d.reroute_rate[static_cast<size_t>(k)];
      // Past the table: the extra step time grows as d / (dp − d) (the rerouted share per peer).
      const double extra_top = 1.0 / d.reroute_rate[static_cast<size_t>(top)] - 1.0;
      const double share_top = double(top) / double(d.dp - top), share = double(k) / double(d.dp - k);
      return 1.0 / (1.0 + extra_top * share / share_top);
    }
    case Continuing::SWARM: return double(d.dp - max_down_) / double(d.dp);
  }
  return 1.0;
}

bool DownSet::fatal() const {
  if (count_ == 0) return false;
  const Degradation& d = *d_;
  switch (d.kind) {
    case Continuing::RECONFIGURE: return !(template_sum_ > 0);
    case Continuing::REDUNDANT: return adjacent_ > 0 || (d.units < 2 && degraded_replicas_ > 0);
    case Continuing::REROUTE:
    case Continuing::SWARM: return max_down_ >= d.dp;
  }
  return false;
}

}  // namespace sim::reliability
