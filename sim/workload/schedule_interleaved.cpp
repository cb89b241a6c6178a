// Interleaved 1F1B (Narayanan et al. 2021 §2.2): each rank holds v model chunks and runs
// Megatron-LM's 1F1B order over them (one_f_one_b_units), which shrinks the bubble v times.
#include <algorithm>

#include "sim/workload/schedule.hpp"

namespace sim {
namespace {

std::vector<std::vector<ScheduleUnit>> units(int64_t pp, int64_t v, int64_t m) {
  return every_rank(pp, v, m, one_f_one_b_units);
}

double in_flight(int64_t pp, int64_t v, int64_t m, int64_t r) {
  if (v == 1) return one_f_one_b_schedule().in_flight(pp, v, m, r);
  // Megatron's interleaved schedule runs 2*(pp-rank-1) + (v-1)*pp warm-up chunk forwards, then
  // one more before the first backward. For rank 0 with m >= pp this is pp * (1 + (pp-1)/(pp*v))
  // microbatches (Korthikanti §4.2.3); the other ranks follow the same count rather than scaling
  // 1F1B's, since the last rank holds nearly pp, not ~1.
  const int64_t chunks = std::min(2 * (pp - r - 1) + (v - 1) * pp + 1, m * v);
  return static_cast<double>(chunks) / static_cast<double>(v);
}

}  // namespace

PipelineSchedule interleaved_schedule() { return {Schedule::INTERLEAVED, units, in_flight}; }

}  // namespace sim
