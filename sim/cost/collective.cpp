#include "sim/cost/collective.hpp"

namespace sim {

RingCost ring_cost(CollectiveKind kind, Bytes buffer, int64_t n) {
  if (kind == CollectiveKind::SEND_RECV) return {buffer, 1};
  if (n <= 1) return {Bytes(0), 0};
  const double frac = static_cast<double>(n - 1) / static_cast<double>(n);
  if (kind == CollectiveKind::ALL_REDUCE) return {buffer * (2.0 * frac), 2 * (n - 1)};
  if (kind == CollectiveKind::ALL_TO_ALL) return {buffer * frac, 1};  // its sends are in flight at once
  return {buffer * frac, n - 1};
}

double busbw_factor(CollectiveKind kind, int64_t n) {
  if (kind == CollectiveKind::SEND_RECV) return 1.0;
  const double frac = static_cast<double>(n - 1) / static_cast<double>(n);
  return kind == CollectiveKind::ALL_REDUCE ? 2.0 * frac : frac;
}

Seconds collective_latency(CollectiveKind kind, int64_t n, bool scale_out, const CollectiveConstants& c) {
  RingCost r = ring_cost(kind, Bytes(0), n);
  if (r.steps == 0) return Seconds(0);
  Seconds step = scale_out ? c.scale_out_step_latency : c.scale_up_step_latency;
  return c.base_latency + step * static_cast<double>(r.steps);
}

Seconds ring_time_idle(CollectiveKind kind, Bytes buffer, int64_t n, BytesPerSecond link_bandwidth, bool scale_out,
                       const CollectiveConstants& c) {
  RingCost r = ring_cost(kind, buffer, n);
  if (r.steps == 0) return Seconds(0);
  double eff = scale_out ? c.scale_out_efficiency : c.scale_up_efficiency;
  return collective_latency(kind, n, scale_out, c) + r.bytes_per_rank / (link_bandwidth * eff);
}

}  // namespace sim
