// GPipe (Huang et al. 2019): every microbatch's forward, then every backward in reverse order; a
// rank holds all m microbatches' activations before its first backward.
#include "sim/workload/schedule.hpp"

namespace sim {
namespace {

std::vector<ScheduleUnit> rank_units(int64_t, int64_t, int64_t m, int64_t) {
  std::vector<ScheduleUnit> out;
  for (int64_t i = 0; i < m; ++i) out.push_back({true, 0, i});
  for (int64_t i = m - 1; i >= 0; --i) out.push_back({false, 0, i});
  return out;
}

std::vector<std::vector<ScheduleUnit>> units(int64_t pp, int64_t v, int64_t m) {
  return every_rank(pp, v, m, rank_units);
}

double in_flight(int64_t, int64_t, int64_t m, int64_t) { return static_cast<double>(m); }

}  // namespace

PipelineSchedule gpipe_schedule() { return {Schedule::GPIPE, units, in_flight}; }

}  // namespace sim
