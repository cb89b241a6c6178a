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

// The aligned group of `takes` nodes holding `node` (FailureComponent::takes_nodes): sets e.node to
// its first node and e.nodes to its size, clipped at the job's last node. A node outside the job
// (unknown, -1, or a trace index beyond it) is left as is, with the whole group's size.
void take_group(FailureEvent& e, int64_t takes, int64_t nodes) {
  e.nodes = takes;
  if (e.node < 0 || e.node >= nodes) return;
  e.node = e.node / takes * takes;
  e.nodes = std::min(takes, nodes - e.node);
}

// Pending detections: a min-heap on (detection time, draw order) through std::*_heap, which keep
// a max-heap, hence "later".
bool later(const FailureEvent& a, uint64_t a_order, const FailureEvent& b, uint64_t b_order) {
  return a.time.value != b.time.value ? a.time.value > b.time.value : a_order > b_order;
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
    case FailureLaw::TRACE: {
      // The window the trace is replayed over, not its last failure: one failure at t = 0 in a
      // week means a week per failure, not none.
      const auto observed = std::count_if(spec.trace.begin(), spec.trace.end(),
                                          [&](const TracedFailure& f) { return f.time <= spec.horizon; });
      if (observed == 0) return Seconds(INF);
      return Seconds(spec.horizon.value / static_cast<double>(observed));
    }
  }
  return Seconds(INF);
}

FailureProcess::FailureProcess(const FailureSpec& spec, int64_t nodes, uint64_t seed)
    : law_(spec.law), nodes_(nodes), rng_(make_stream(seed, "failures")) {
  if (nodes < 1 || nodes > MAX_RELIABILITY_NODES) throw std::logic_error("FailureProcess: nodes out of [1, 2^17]");
  for (const auto& c : spec.components) {
    if (c.takes_nodes < 1) throw std::logic_error("FailureProcess: takes_nodes < 1 (a \"pod\" left unresolved?)");
    if (!(c.silent_latency.value >= 0)) throw std::logic_error("FailureProcess: negative silent_latency");
  }
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
      FailureEvent e{f.time, static_cast<int>(it - components_.begin()), it->scope, node_of(f.location)};
      if (it->takes_nodes > 1) take_group(e, it->takes_nodes, nodes);
      // The row's time is the detection; a silent cause's corruption is dated its mean latency earlier.
      e.corrupted_at = Seconds(std::max(0.0, f.time.value - it->silent_latency.value));
      trace_.push_back(e);
    }
    return;
  }
  components_ = causes_of(spec);
  for (const auto& c : components_) any_silent_ = any_silent_ || c.silent_latency.value > 0;
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
  FailureEvent none;
  none.time = none.corrupted_at = Seconds(INF);
  if (law_ == FailureLaw::TRACE) return trace_next_ < trace_.size() ? trace_[trace_next_++] : none;
  const auto cmp = [](const Pending& a, const Pending& b) { return later(a.event, a.order, b.event, b.order); };
  // Draw until the earliest pending detection comes no later than the latest corruption drawn: every
  // undrawn event is corrupted, hence detected, at or after that.
  while (pending_.empty() || pending_.front().event.time.value > last_corruption_) {
    const FailureEvent e = draw();
    if (std::isinf(e.time.value)) break;  // no failures at all (rate 0)
    last_corruption_ = e.corrupted_at.value;
    pending_.push_back({e, drawn_++});
    std::push_heap(pending_.begin(), pending_.end(), cmp);
  }
  if (pending_.empty()) return none;
  std::pop_heap(pending_.begin(), pending_.end(), cmp);
  const FailureEvent e = pending_.back().event;
  pending_.pop_back();
  return e;
}

FailureEvent FailureProcess::draw() {
  FailureEvent e;
  switch (law_) {
    case FailureLaw::TRACE: throw std::logic_error("FailureProcess::draw: a trace is replayed, not drawn");
    case FailureLaw::POISSON:
      if (std::isinf(mean_gap_)) {
        e.time = e.corrupted_at = Seconds(INF);
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
  const FailureComponent& c = components_[static_cast<size_t>(e.component)];
  e.scope = c.scope;
  if (c.takes_nodes > 1) take_group(e, c.takes_nodes, nodes_);
  e.corrupted_at = e.time;
  if (any_silent_) {  // one draw per event whether or not this one is silent: a fixed count
    const double u = unit_open(rng_());
    if (c.silent_latency.value > 0) e.time = Seconds(e.time.value + exponential_from(u, c.silent_latency.value));
  }
  return e;
}

}  // namespace sim::reliability
