// The failures of a job over wall-clock time, one at a time, from a FailureSpec
// (sim/scenario/reliability_spec.hpp) and the job's node count:
//   POISSON  superposition of every component's rate × nodes: exponential gaps of mean
//            1/(nodes · Σ rates); the component is drawn in proportion to its rate, the node
//            uniformly;
//   WEIBULL  a renewal process per node (Weibull(shape, scale) gaps, every node new at time 0),
//            merged through a min-heap of the nodes' next failure times; the component is drawn in
//            proportion to the components' rates (equal shares when they are all 0);
//   TRACE    the trace's failures in order, then none (time = +infinity).
// Planned maintenance is not a failure: the job timeline schedules it (job_timeline.hpp).
//
// Determinism (STYLE.md §8): all draws come from make_stream(seed, "failures") (sim/core/rng.hpp,
// a standardised mt19937_64) through our own transforms below, never std::*_distribution, whose
// algorithms differ between standard libraries: the same seed gives the same failures everywhere.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "sim/scenario/reliability_spec.hpp"

namespace sim::reliability {

// A uniform double from 64 random bits: ((x >> 11) + 0.5) · 2^-53, in (0, 1) except for the one
// top value x >> 11 = 2^53 − 1, which rounds to exactly 1 (a zero gap below: harmless).
inline double unit_open(uint64_t x) { return (static_cast<double>(x >> 11) + 0.5) * 0x1p-53; }

// Inverse-CDF draws from one uniform u in (0, 1).
double exponential_from(double u, double mean);             // mean · (−ln u)
double weibull_from(double u, double shape, double scale);  // scale · (−ln u)^(1/shape)

struct FailureEvent {
  Seconds time;       // since the start of the job; +infinity when no failure is left
  int component = 0;  // index into FailureProcess::components()
  FailureScope scope = FailureScope::NODE;
  int64_t node = -1;  // the failed node, -1 when unknown (a trace location that is not a number)
};

// The job's mean time between failures: POISSON 86400 s / (nodes · Σ per-node-day rates);
// WEIBULL scale · Γ(1 + 1/shape) / nodes (the renewal mean); TRACE the last failure's time / the
// number of failures. +infinity when there are no failures.
Seconds job_mttf(const FailureSpec& spec, int64_t nodes);

class FailureProcess {
 public:
  // nodes in [1, 2^17]; the spec is copied where needed, not referenced.
  FailureProcess(const FailureSpec& spec, int64_t nodes, uint64_t seed);

  // The next failure, strictly in time order (equal times possible).
  FailureEvent next();

  // The causes: the spec's components, or one "node" cause of scope NODE when it has none; for a
  // trace, its component names in order of first appearance (scope from the spec's component of
  // the same name, else known_component_scope's, else NODE).
  const std::vector<FailureComponent>& components() const { return components_; }

 private:
  int draw_component();

  FailureLaw law_;
  int64_t nodes_;
  std::mt19937_64 rng_;
  std::vector<FailureComponent> components_;
  std::vector<double> cumulative_;                // cumulative component weights, for draw_component
  double mean_gap_ = 0;                           // POISSON: seconds between job failures
  double shape_ = 1, scale_ = 1;                  // WEIBULL
  std::vector<std::pair<double, int64_t>> heap_;  // WEIBULL: (next failure time, node), min-heap
  std::vector<FailureEvent> trace_;               // TRACE
  size_t trace_next_ = 0;
  double now_ = 0;  // POISSON: time of the last failure
};

}  // namespace sim::reliability
