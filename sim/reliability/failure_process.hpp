// The failures of a job over wall-clock time, one at a time, from a FailureSpec
// (sim/scenario/reliability_spec.hpp) and the job's node count:
//   POISSON  superposition of every component's rate × nodes: exponential gaps of mean
//            1/(nodes · Σ rates); the component is drawn in proportion to its rate, the node
//            uniformly;
//   WEIBULL  a renewal process per node (Weibull(shape, scale) gaps, every node new at time 0),
//            merged through a min-heap of the nodes' next failure times; the component is drawn in
//            proportion to the components' rates (equal shares when they are all 0);
//   TRACE    the trace's failures in order, then none (time = +infinity).
// Correlated failures: a component with takes_nodes = K takes down the aligned group of K nodes
// holding the drawn node (first = (node / K) · K, count = min(K, nodes − first)); its rate is still
// per node-day, so the number of events is unchanged, only each event's reach.
// Silent data corruption: for a component with silent_latency = m, the drawn time is the corruption
// c; the job sees the event at its detection c + L, L exponential of mean m. Detections can overtake
// one another, so next() draws ahead into a min-heap of pending detections and releases the
// earliest once every undrawn event (corrupted no earlier than the last drawn, so detected no
// earlier either) cannot precede it. Without silent components each draw is released at once.
// Planned maintenance is not a failure: the job timeline schedules it (job_timeline.hpp).
//
// Determinism (STYLE.md §8): all draws come from make_stream(seed, "failures") (sim/core/rng.hpp,
// a standardised mt19937_64) through our own transforms below, never std::*_distribution, whose
// algorithms differ between standard libraries: the same seed gives the same failures everywhere.
// Each event costs a fixed number of draws: POISSON gap, node, component; WEIBULL the node's next
// gap, component; plus one latency draw for every event (silent or not) when any component is
// silent, so a spec without silent components draws exactly as before.
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
  Seconds time;       // when the job sees it (detection), since its start; +infinity when none is left
  int component = 0;  // index into FailureProcess::components()
  FailureScope scope = FailureScope::NODE;
  // The failed node, the first of a group's; -1 when unknown (a trace location that is not a number).
  int64_t node = -1;
  int64_t nodes = 1;  // consecutive nodes from `node` taken down together (a switch, a pod)
  // When the work began to go wrong: == time except for silent failures (time − latency).
  Seconds corrupted_at{};
};

// The job's mean time between failures: POISSON 86400 s / (nodes · Σ per-node-day rates);
// WEIBULL scale · Γ(1 + 1/shape) / nodes (the renewal mean); TRACE the observation window (the
// horizon it is replayed over) / the trace's failures within it, whatever their times.
// +infinity when there are no failures.
Seconds job_mttf(const FailureSpec& spec, int64_t nodes);

class FailureProcess {
 public:
  // nodes in [1, 2^17]; the spec is copied where needed, not referenced.
  FailureProcess(const FailureSpec& spec, int64_t nodes, uint64_t seed);

  // The next failure, strictly in order of detection time (equal times possible; ties in the order
  // drawn).
  FailureEvent next();

  // The causes: the spec's components, or one "node" cause of scope NODE when it has none; for a
  // trace, its component names in order of first appearance (scope from the spec's component of
  // the same name, else known_component_scope's, else NODE; takes_nodes and silent_latency likewise
  // from the spec's component, else 1 and 0).
  const std::vector<FailureComponent>& components() const { return components_; }

 private:
  int draw_component();
  FailureEvent draw();  // the next corruption in time order (POISSON, WEIBULL), dated at its detection

  struct Pending {  // a drawn event waiting for its detection
    FailureEvent event;
    uint64_t order;  // draw order, to break ties in time deterministically
  };

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
  double now_ = 0;                // POISSON: time of the last failure drawn (its corruption, when silent)
  bool any_silent_ = false;       // draw a latency for every event
  std::vector<Pending> pending_;  // min-heap on (event.time, order)
  uint64_t drawn_ = 0;            // events drawn so far
  double last_corruption_ = 0;    // the latest drawn corruption time: no undrawn event is earlier
};

}  // namespace sim::reliability
