// 1F1B (PipeDream-Flush, Narayanan et al. 2021 §2.2): after pp - r - 1 warm-up forwards a rank
// alternates one forward and one backward, so it holds at most pp - r microbatches' activations.
#include <algorithm>

#include "sim/workload/schedule.hpp"

namespace sim {

std::vector<ScheduleUnit> one_f_one_b_units(int64_t pp, int64_t v, int64_t m, int64_t r) {
  std::vector<ScheduleUnit> out;
  const int64_t total = m * v;
  // The k-th forward (backward) unit; with one chunk, simply microbatch k.
  auto unit = [&](int64_t k, bool fwd) {
    int64_t group = k / (pp * v), in_group = k % (pp * v);
    int64_t chunk = in_group / pp;
    if (!fwd) chunk = v - 1 - chunk;
    return ScheduleUnit{fwd, chunk, group * pp + in_group % pp};
  };
  const int64_t warmup = v == 1 ? std::min(pp - r - 1, m) : std::min((pp - r - 1) * 2 + (v - 1) * pp, total);
  for (int64_t k = 0; k < warmup; ++k) out.push_back(unit(k, true));
  for (int64_t i = 0; i < total - warmup; ++i) {
    out.push_back(unit(warmup + i, true));
    out.push_back(unit(i, false));
  }
  for (int64_t k = total - warmup; k < total; ++k) out.push_back(unit(k, false));
  return out;
}

namespace {

std::vector<std::vector<ScheduleUnit>> units(int64_t pp, int64_t v, int64_t m) {
  return every_rank(pp, v, m, one_f_one_b_units);
}

double in_flight(int64_t pp, int64_t, int64_t m, int64_t r) { return static_cast<double>(std::min(pp - r, m)); }

}  // namespace

PipelineSchedule one_f_one_b_schedule() { return {Schedule::ONE_F_ONE_B, units, in_flight}; }

}  // namespace sim
