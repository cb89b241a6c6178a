#include "sim/reliability/failure_process.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <stdexcept>

#include "sim/core/rng.hpp"

namespace sim::reliability {
namespace {

constexpr double SECONDS_PER_DAY = 86400.0;
constexpr double INF = std::numeric_limits<double>::infinity();

std::vector<FailureComponent> causes_of(const FailureSpec& spec) {
  if (!spec.components.empty()) return spec.components;
  return {FailureComponent{"node", spec.per_node_day, FailureScope::NODE}};
}

double total_rate(const std::vector<FailureComponent>& causes) {
  double sum = 0;
  for (const auto& c : causes) sum += c.per_node_day;
  return sum;
}

// A trace location that is a plain non-negative integer is a node index; anything else is unknown.
int64_t node_of(const std::string& location) {
  if (location.empty() || location.size() > 18) return -1;
  for (char ch : location)
    if (ch < '0' || ch > '9') return -1;
  return std::strtoll(location.c_str(), nullptr, 10);
}

}  // namespace

double exponential_from(double u, double mean) { return -std::log(u) * mean; }

double weibull_from(double u, double shape, double scale) { return scale * std::pow(-std::log(u), 1.0 / shape); }

Seconds job_mttf(const FailureSpec& spec, int64_t nodes) {
  const double n = static_cast<double>(nodes);
  switch (spec.law) {
    case FailureLaw::POISSON: {
      const double rate = total_rate(causes_of(spec));
      return Seconds(rate > 0 ? SECONDS_PER_DAY / (n * rate) : INF);
    }
    case FailureLaw::WEIBULL:
      return Seconds(spec.weibull_scale.value * std::tgamma(1.0 + 1.0 / spec.weibull_shape) / n);
    case FailureLaw::TRACE:
      if (spec.trace.empty()) return Seconds(INF);
      return Seconds(spec.trace.back().time.value / static_cast<double>(spec.trace.size()));
  }
  return Seconds(INF);
}

FailureProcess::FailureProcess(const FailureSpec& spec, int64_t nodes, uint64_t seed)
    : law_(spec.law), nodes_(nodes), rng_(make_stream(seed, "failures")) {
  if (nodes < 1 || nodes > MAX_RELIABILITY_NODES) throw std::logic_error("FailureProcess: nodes out of [1, 2^17]");
  if (law_ == FailureLaw::TRACE) {
    for (const auto& f : spec.trace) {
      auto it = std::find_if(components_.begin(), components_.end(),
                             [&](const FailureComponent& c) { return c.name == f.component; });
      if (it == components_.end()) {
        FailureComponent c{f.component, 0, known_component_scope(f.component).value_or(FailureScope::NODE)};
        for (const auto& s : spec.components)
          if (s.name == f.component) c = s;
        components_.push_back(c);
        it = components_.end() - 1;
      }
      trace_.push_back({f.time, static_cast<int>(it - components_.begin()), it->scope, node_of(f.location)});
    }
    return;
  }
  components_ = causes_of(spec);
  const bool all_zero = total_rate(components_) <= 0;
  double sum = 0;
  for (const auto& c : components_) cumulative_.push_back(sum += all_zero ? 1.0 : c.per_node_day);
  if (law_ == FailureLaw::POISSON) {
    const double rate = total_rate(components_);
    mean_gap_ = rate > 0 ? SECONDS_PER_DAY / (static_cast<double>(nodes) * rate) : INF;
  } else {
    shape_ = spec.weibull_shape;
    scale_ = spec.weibull_scale.value;
    heap_.reserve(static_cast<size_t>(nodes));
    for (int64_t i = 0; i < nodes; ++i) heap_.emplace_back(weibull_from(unit_open(rng_()), shape_, scale_), i);
    std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
}

int FailureProcess::draw_component() {
  if (cumulative_.size() <= 1) return 0;
  const double x = unit_open(rng_()) * cumulative_.back();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), x);
  return static_cast<int>(
      std::min<ptrdiff_t>(it - cumulative_.begin(), static_cast<ptrdiff_t>(cumulative_.size()) - 1));
}

FailureEvent FailureProcess::next() {
  FailureEvent e;
  switch (law_) {
    case FailureLaw::TRACE:
      if (trace_next_ < trace_.size()) return trace_[trace_next_++];
      e.time = Seconds(INF);
      return e;
    case FailureLaw::POISSON:
      if (std::isinf(mean_gap_)) {
        e.time = Seconds(INF);
        return e;
      }
      now_ += exponential_from(unit_open(rng_()), mean_gap_);
      e.time = Seconds(now_);
      e.node = std::min(nodes_ - 1, static_cast<int64_t>(unit_open(rng_()) * static_cast<double>(nodes_)));
      break;
    case FailureLaw::WEIBULL: {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      auto& [t, node] = heap_.back();
      e.time = Seconds(t);
      e.node = node;
      t += weibull_from(unit_open(rng_()), shape_, scale_);
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
      break;
    }
  }
  e.component = draw_component();
  e.scope = components_[static_cast<size_t>(e.component)].scope;
  return e;
}

}  // namespace sim::reliability
